import type { BundledFunction } from "./function-entries";

/** The provider clients a function's bundle can hold: what a stage calls out to. */
export const PROVIDER_PACKAGES = [
  "@aws-sdk/client-s3",
  "@aws-sdk/client-sfn",
  "@aws-sdk/client-eventbridge",
  "@aws-sdk/client-bedrock-runtime",
  "@aws-sdk/client-sagemaker-runtime",
  "@aws-sdk/client-transcribe",
  "@aws-sdk/client-kms",
  "@aws-sdk/client-datazone",
  "@cartesia/cartesia-js",
] as const;

/** One of {@link PROVIDER_PACKAGES}. */
export type ProviderPackage = (typeof PROVIDER_PACKAGES)[number];

const S3 = "@aws-sdk/client-s3";
const SFN = "@aws-sdk/client-sfn";
const EVENTBRIDGE = "@aws-sdk/client-eventbridge";
const BEDROCK = "@aws-sdk/client-bedrock-runtime";
const SAGEMAKER = "@aws-sdk/client-sagemaker-runtime";
const TRANSCRIBE = "@aws-sdk/client-transcribe";
const KMS = "@aws-sdk/client-kms";
const CARTESIA = "@cartesia/cartesia-js";

/**
 * The provider clients each function's bundle holds, and no other: what its stage calls, whatever
 * the stage's provider selection. The bundle test asserts it and the bundle bench prints the
 * difference from it.
 */
export const STAGE_PROVIDERS: Readonly<Record<BundledFunction, readonly ProviderPackage[]>> = {
  // Job claims ask Step Functions whether the execution holding a claim still runs.
  ingest: [S3, SFN],
  // cartesia-ink, or amazon-transcribe (its jobs' steps; the await and resume steps resume the
  // workflow with Step Functions' SendTaskSuccess).
  transcribe: [S3, SFN, CARTESIA, TRANSCRIBE],
  reason: [S3, BEDROCK],
  // Both cloud synthesizers: sonic-sagemaker and cartesia-api.
  synthesize: [S3, SAGEMAKER, CARTESIA],
  synthesizePrompt: [S3, SAGEMAKER, CARTESIA],
  // Outcome events.
  finalize: [S3, EVENTBRIDGE],
  recordFailure: [S3, EVENTBRIDGE],
  // Like Ingest: its job claim asks Step Functions whether a claimed execution still runs.
  preparePrompts: [S3, SFN],
  recordPromptFailure: [S3],
  writePromptsReport: [S3],
  // The stage's store every function is built with (its bucket is the one the event must name);
  // OpenBatch never calls it, and its role grants no S3.
  openBatch: [S3],
  // Reads summaries and writes digests; signs with the stage's KMS key.
  lineageSigner: [S3, KMS],
  // Reads summaries, writes the index's Parquet (a JavaScript writer: no native engine) and symlinks.
  lineageIndexCompactor: [S3],
};

/** How `fn`'s bundled `packages` differ from {@link STAGE_PROVIDERS}: providers beyond it, and missing. */
export function stageMismatch(
  fn: BundledFunction,
  packages: readonly string[],
): { unexpected: ProviderPackage[]; missing: ProviderPackage[] } {
  const expected: readonly string[] = STAGE_PROVIDERS[fn];
  return {
    unexpected: PROVIDER_PACKAGES.filter((name) => packages.includes(name) && !expected.includes(name)),
    missing: PROVIDER_PACKAGES.filter((name) => expected.includes(name) && !packages.includes(name)),
  };
}
