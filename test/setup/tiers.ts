/**
 * The test tiers: each a vitest project (`npm run test:<name>`), `npm test` runs them all. A test
 * file belongs to exactly one tier (`test/packages/test-tiers.test.ts` checks every `*.test.ts`); a new
 * file lands in `unit` unless a slower tier's globs name it, and `unit` refuses to start an engine
 * or the CLI (`test/setup/no-engine-processes.ts`) and has no moto_server, so a slow test put
 * there fails instead of slowing the inner loop down.

 */
export interface Tier {
  name: "unit" | "pipeline" | "models" | "deploy";
  /** The test files of the tier (for `unit`: every test file, less the other tiers'). */
  include: string[];
  /** The tier's vitest globalSetup files: the CLI's build, and what its tests may `inject` (moto_server, the fixture store). */
  globalSetup: string[];
}

const MOTO_SERVER = "test/setup/moto-server.ts";
const FIXTURE_STORE = "test/setup/fixture-store.ts";
const CLI_BUILD = "test/setup/cli-build.ts";

/** Where test files live. */
export const TEST_FILES = ["packages/*/test/**/*.test.ts", "test/**/*.test.ts", "tools/*/test/**/*.test.ts"];

/**
 * Local runtime runs, the CLI end to end, moto_server, the embedded engines' endpoints and processes,
 * the browser test, and the DuckDB index walks (in process, but half a minute).
 */
const PIPELINE: Tier = {
  name: "pipeline",
  globalSetup: [CLI_BUILD, MOTO_SERVER, FIXTURE_STORE],
  include: [
    "test/e2e/**/*.test.ts",
    "test/integration/**/*.test.ts",
    "test/hostile/**/*.test.ts",
    "packages/cli/test/report-command.test.ts",
    "packages/cli/test/duckdb-index-walk.test.ts",
    "packages/cli/test/index-proof.test.ts",
    "packages/cli/test/version-command.test.ts",
    "packages/functions/test/eventbridge-publisher.test.ts",
    "packages/functions/test/lambda-dependencies.test.ts",
    "packages/functions/test/store-access-denied.test.ts",
    "packages/lineage/test/digest-incremental.test.ts",
    "packages/lineage/test/kms-signer.test.ts",
    "packages/lineage/test/lineage-cli.test.ts",
    "packages/lineage/test/step-functions-liveness.test.ts",
    "packages/local/test/flite/**/*.test.ts",
    "packages/local/test/sonic-endpoint/**/*.test.ts",
    "packages/local/test/transcribe-endpoint/**/*.test.ts",
    "packages/local/test/prompts-runtime.test.ts",
    "packages/providers/test/records/s3-*.test.ts",
    "packages/providers/test/selection.test.ts",
    "packages/report/test/html-report.browser.test.ts",
    "packages/storage/test/s3-store.test.ts",
  ],
};

/** The real engines' accuracy and the rebuilds of their models. */
const MODELS: Tier = {
  name: "models",
  globalSetup: [],
  include: [
    "packages/providers/test/transcription-pocketsphinx.test.ts",
    "packages/providers/test/transcription-speaker-fit.test.ts",
    "tools/models/test/**/*.test.ts",
    "tools/eval/test/**/*.test.ts",
  ],
};

/**
 * The stacks, the functions' bundles, the rehearsal of a stage and the doctor, and the CLI as it
 * ships: packed, installed into an empty folder and run there.
 */
const DEPLOY: Tier = {
  name: "deploy",
  globalSetup: [MOTO_SERVER],
  include: [
    "test/stacks/**/*.test.ts",
    "test/install/**/*.test.ts",
    "packages/operator/test/doctor/**/*.test.ts",
    "packages/operator/test/rehearsal/**/*.test.ts",
  ],
};

/** The inner loop's default: everything else, in process, with no moto_server and no engine. */
const UNIT: Tier = { name: "unit", globalSetup: [], include: TEST_FILES };

/** Every tier, `unit` first. */
export const TIERS: readonly Tier[] = [UNIT, PIPELINE, MODELS, DEPLOY];

/** The globs a tier leaves out: for `unit`, every other tier's files. */
export function tierExclude(tier: Tier): string[] {
  return tier.name === "unit"
    ? TIERS.filter((other) => other !== tier).flatMap((other) => other.include)
    : [];
}
