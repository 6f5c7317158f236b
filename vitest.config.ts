import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/setup/moto-server.ts"],
    reporters: [
      "default",
      "./test/setup/plain-summary-reporter.ts",
      "./test/setup/timeout-margin-reporter.ts",
    ],
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
