import * as z from "zod/mini";
import { ArtifactRef, ManifestRef, SourceRef } from "./artifact";
import { Boundary, Processor } from "./boundary";
import { PolicyDecision } from "./boundary-policy";
import { RedactionCount } from "./redaction/redactor";
import { Timing } from "./timing";
import { SampleConditions, StreamDelivery } from "./timing-sample";

/** A named error as recorded: name and safe message, never a stack or caller data. */
export const RecordedError = z.object({ name: z.string(), message: z.string() });
export type RecordedError = z.infer<typeof RecordedError>;

/**
 * What the channels beside the artifacts carry: logs, state payloads and events hold pointers
 * (keys, hashes, sizes, names) and never caller data (docs/architecture.md, "Principle 2").
 */
export const SideChannels = z.object({
  logs: z.literal("pointers-only"),
  statePayloads: z.literal("pointers-only"),
  events: z.literal("pointers-only"),
});
export type SideChannels = z.infer<typeof SideChannels>;

/** The side channels as every stage handler uses them. */
export const POINTERS_ONLY: SideChannels = {
  logs: "pointers-only",
  statePayloads: "pointers-only",
  events: "pointers-only",
};

/**
 * One call an AWS SDK client made for the attempt: the command, how many HTTP attempts the SDK's own
 * retry strategy made (`$metadata.attempts`; 1 when it did not retry) and how long it waited
 * between them. Step Functions' retries are separate attempts, with records of their own.
 */
export const SdkCall = z.object({
  /** The client's service, e.g. `sagemaker-runtime`, `bedrock-runtime`, `s3`. */
  service: z.string(),
  /** The SDK command, e.g. `InvokeEndpointWithResponseStreamCommand`. */
  command: z.string(),
  attempts: z.number().check(z.int(), z.positive()),
  totalRetryDelayMs: z.number().check(z.nonnegative()),
  outcome: z.enum(["succeeded", "failed"]),
});
export type SdkCall = z.infer<typeof SdkCall>;

/** A job on a managed service, by what names it there: the service, and the job's name in it. */
export const ServiceJobIdentity = z.object({ service: z.string(), name: z.string() });

/**
 * A job the attempt ran on a managed service (an Amazon Transcribe transcription job): its
 * {@link ServiceJobIdentity}, and the S3 URIs it read and wrote. Pointers only.
 */
export const ServiceJob = z.extend(ServiceJobIdentity, {
  input: z.string(),
  output: z.string(),
  /**
   * How many waits for the job's end the workflow began: 1 when its state-change event came
   * within the first (transcription-job-states.ts).
   */
  waits: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** Records written before the workflow waited for events: how often it polled the job. */
  polls: z.optional(z.number().check(z.int(), z.nonnegative())),
});
export type ServiceJob = z.infer<typeof ServiceJob>;

/** The activity record version written now; version 1 records lack `policy` and `sideChannels`. */
/** One output written redacted: what lineage records of a redaction (OpenLineage: a masking transformation). */
export const ArtifactRedaction = z.object({
  /** The redacted output's key. */
  output: z.string(),
  /** The key of the input it was redacted from. */
  from: z.string(),
  /** `voxtrail-redactor` (ours), `amazon-transcribe` (the service's ContentRedaction), or both. */
  by: z.array(z.enum(["voxtrail-redactor", "amazon-transcribe"])),
  kinds: z.array(RedactionCount),
});
export type ArtifactRedaction = z.infer<typeof ArtifactRedaction>;

export const ACTIVITY_RECORD_VERSION = 2 as const;

/**
 * One stage attempt (docs/architecture.md, "Principle 3"): what it read and wrote, what processed the data
 * and where, how long it took, and how it ended. Written once, never changed.
 */
export const ActivityRecord = z.object({
  schemaVersion: z.union([z.literal(1), z.literal(2)]),
  activityId: z.string(),
  jobId: z.string(),
  stage: z.string(),
  attempt: z.number().check(z.int(), z.positive()),
  startedAt: z.string(),
  endedAt: z.string(),
  outcome: z.enum(["succeeded", "failed"]),
  /** Where the stage's own code ran (Lambda in the account, or this machine). */
  compute: Boundary,
  /** Inputs; the caller's audio keeps its source identity (bucket, version id, etag). */
  inputs: z.array(z.union([SourceRef, ManifestRef, ArtifactRef])),
  outputs: z.array(ArtifactRef),
  processors: z.array(Processor),
  timings: z.array(Timing),
  /** The conditions every timing was measured under (absent in records written before they were). */
  conditions: z.optional(SampleConditions),
  /** How a streamed synthesis delivered its audio (Synthesize only). */
  delivery: z.optional(StreamDelivery),
  error: z.optional(RecordedError),
  /** The boundary policy's decision on the attempt's data flows (version 2). */
  policy: z.optional(PolicyDecision),
  /** What logs, state payloads and events carry (version 2). */
  sideChannels: z.optional(SideChannels),
  /** The AWS SDK calls the attempt made, with the SDK's own retries (absent when it made none). */
  sdkCalls: z.optional(z.array(SdkCall)),
  /** The managed-service job the attempt ran, when it ran one (Transcribe's start-to-read record). */
  serviceJob: z.optional(ServiceJob),
  /**
   * The call's language the attempt heard, reasoned or spoke in (`es-US`), where the stage names
   * the languages it takes (docs/languages.md); absent otherwise.
   */
  language: z.optional(z.string()),
  /**
   * The record this one follows in its job's chain, by key and the sha256 of its bytes: the
   * stage's previous attempt, else the last attempt of the step before it. Absent on a chain's
   * first record (and in records written before chains were kept).
   */
  previousRecord: z.optional(z.object({ key: z.string(), sha256: z.string() })),
  /**
   * The outputs this attempt wrote redacted (docs/redaction.md): each output's key, the input it
   * was redacted from, who redacted it, and how many of each kind were removed (never a value).
   */
  redactions: z.optional(z.array(ArtifactRedaction)),
});
export type ActivityRecord = z.infer<typeof ActivityRecord>;
