import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Test files that take most of a minute or more on this project's 2-core machine, longest first
 * (the per-file times the default reporter prints at the end of each file, hooks included). Vitest's own order runs the
 * tiers one after another, so a tier's longest file ran alone while the other worker waited for
 * the next tier: started first, on whichever worker is free, they overlap each other and the
 * short files fill in behind them.
 */
export const SLOW_FILES = [
  "tools/models/test/telephony-adaptation.test.ts",
  "packages/operator/test/rehearsal/statement-drop-dev.test.ts",
  "test/e2e/voxtrail-run.test.ts",
  "test/integration/lineage-properties.test.ts",
  "packages/operator/test/rehearsal/rehearsal.test.ts",
  "packages/operator/test/rehearsal/statement-drop-production.test.ts",
  "test/e2e/lineage-index-answers.test.ts",
  "test/hostile/hostile-batch.test.ts",
  "test/integration/erasure-properties.test.ts",
  "packages/cli/test/duckdb-index-walk.test.ts",
  "test/e2e/prompts-run.test.ts",
  "test/install/packed-install.test.ts",
];

/**
 * Vitest's sequencer with {@link SLOW_FILES} moved to the front in their order, across tiers; the
 * rest keep vitest's order (per tier: failed first, then longest by its cache, then largest).
 */
export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = SLOW_FILES.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return index === -1 ? SLOW_FILES.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file);
  }
}
