import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/**
 * With `VOXTRAIL_TIMEOUT_MARGINS=FILE`, writes every test's duration beside its timeout, the
 * smallest margins first, and the time each file spent outside its tests (its hooks): run the
 * suite on a loaded machine (e.g. beside two `yes > /dev/null`) and every test should keep a
 * timeout of at least 5x what it took. Silent otherwise.
 */
export default class TimeoutMarginReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const file = process.env.VOXTRAIL_TIMEOUT_MARGINS;
    if (!file) return;
    const tests = testModules.flatMap((module) =>
      [...module.children.allTests()].map((test) => {
        const durationMs = Math.round(test.diagnostic()?.duration ?? 0);
        const timeoutMs = test.options.timeout ?? test.project.config.testTimeout;
        return {
          test: `${module.moduleId.split("/voxtrail/").pop()} > ${test.fullName}`,
          durationMs,
          timeoutMs,
          margin: timeoutMs / Math.max(1, durationMs),
        };
      }),
    );
    const files = testModules.map((module) => {
      const total = module.diagnostic().duration;
      const inTests = [...module.children.allTests()].reduce(
        (sum, test) => sum + (test.diagnostic()?.duration ?? 0),
        0,
      );
      return {
        file: module.moduleId,
        totalMs: Math.round(total),
        outsideTestsMs: Math.round(total - inTests),
      };
    });
    tests.sort((a, b) => a.margin - b.margin);
    files.sort((a, b) => b.outsideTestsMs - a.outsideTestsMs);
    writeFileSync(file, `${JSON.stringify({ tests, files }, null, 2)}\n`);
  }
}
