import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { SlowFilesFirst } from "./test/setup/slow-files-first.ts";
import { TIERS, tierExclude } from "./test/setup/tiers.ts";

export default defineConfig({
  test: {
    reporters: [
      "default",
      "./test/setup/plain-summary-reporter.ts",
      "./test/setup/timeout-margin-reporter.ts",
    ],
    // Runs sign their lineage with a local key: the tests' own, never the user's.
    env: { VOXTRAIL_SIGNING_KEY: join(tmpdir(), "voxtrail-tests", "lineage-signing-key.pem") },
    // Two files at once even on 2 cores (vitest's default there is one): most of a slow file's time
    // is spent waiting on its engines, its CLI processes and moto_server, not on this process.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The minute-long files first, whatever their tier (test/setup/slow-files-first.ts).
    sequence: { sequencer: SlowFilesFirst },
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // One project per tier (test/setup/tiers.ts): `vitest run --project unit`, or all of them.
    projects: TIERS.map((tier) => ({
      extends: true,
      test: {
        name: tier.name,
        include: tier.include,
        exclude: [...configDefaults.exclude, ...tierExclude(tier)],
        globalSetup: tier.globalSetup,
        setupFiles: tier.name === "unit" ? ["test/setup/no-engine-processes.ts"] : [],
      },
    })),
  },
});
