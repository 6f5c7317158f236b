import type { Reporter, TestCase, TestModule } from "vitest/node";

/**
 * Ends the run with one plain line, `Tests: N passed, N failed, N skipped`, that tools reading
 * a log can count without knowing vitest's own summary format. A test that never ran because a
 * hook of its file or suite failed counts as failed, not skipped.
 */
export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        // A test skipped because its suite's hook failed (e.g. a beforeAll) did not pass either.
        if (state === "skipped" && inFailedSuite(test)) counts.failed += 1;
        else if (state === "passed" || state === "failed" || state === "skipped") counts[state] += 1;
      }
    }
    process.stdout.write(
      `Tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`,
    );
  }
}

function inFailedSuite(test: TestCase): boolean {
  for (let parent = test.parent; ; parent = parent.parent) {
    if (parent.state() === "failed") return true;
    if (parent.type === "module") return false;
  }
}
