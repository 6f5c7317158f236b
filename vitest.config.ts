import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts", "tools/*/test/**/*.test.ts"],
    globalSetup: ["test/setup/moto-server.ts"],
    reporters: [
      "default",
      "./test/setup/plain-summary-reporter.ts",
      "./test/setup/timeout-margin-reporter.ts",
    ],
    // Runs sign their lineage with a local key: the tests' own, never the user's.
    env: { VOXTRAIL_SIGNING_KEY: join(tmpdir(), "voxtrail-tests", "lineage-signing-key.pem") },
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
