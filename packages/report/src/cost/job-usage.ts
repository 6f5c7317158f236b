import type { ActivityRecord } from "@voxtrail/core";
import {
  type AslDefinition,
  type BillingUnit,
  billingUnitOf,
  buildVoicemailDefinition,
  FUNCTION_SIZES,
  functionOf,
  type RegistryRole,
  STAGE_FUNCTIONS,
  type StageFunction,
  VOICEMAIL_STAGES,
  type VoicemailStage,
} from "@voxtrail/workflow";
import type { JobData } from "../job-data";
import { statePath } from "./state-path";

/** What one stage's Lambda function and its S3 calls used for one job, over all its attempts. */
export interface StageUsage {
  /** The stage as activity records name it: `Transcribe`, `RecordReasonFailure`, ... */
  stage: string;
  fn: StageFunction;
  /** Lambda invocations: one per attempt. */
  invocations: number;
  /** Billed Lambda seconds: each attempt's recorded span, rounded up to the millisecond. */
  seconds: number;
  memoryMb: number;
  gbSeconds: number;
  /** S3 PUT/COPY/POST/LIST requests. */
  s3Writes: number;
  /** S3 GET/HEAD requests. */
  s3Reads: number;
}

/** What one job used, as far as its report and activity records tell. */
export interface JobUsage {
  jobId: string;
  stages: StageUsage[];
  /** Standard workflow transitions: the states on the job's path, plus one per retry. */
  stateTransitions: number;
  /** Execution start to the end of the last activity (what an Express workflow bills). */
  executionSeconds: number;
  /** Seconds synthesis streams held a Sonic endpoint (request sent to stream done). */
  sonicStreamSeconds: number;
  /** Characters sent to Cartesia's TTS API (UTF-8 bytes of the reply text). */
  cartesiaTtsCharacters: number;
  /** Seconds of audio sent to Cartesia's STT API. */
  cartesiaSttSeconds: number;
  /** Seconds of audio Amazon Transcribe bills: each job's duration, at least 15 s. */
  transcribeBilledSeconds: number;
  /** Custom events put on the outcome bus. */
  customEvents: number;
}

/** The provider role whose billing unit (`PROVIDER_REGISTRY`) each billed stage function's records count. */
const BILLED_ROLES: Partial<Record<StageFunction, RegistryRole>> = {
  transcribe: "transcriber",
  synthesize: "synthesizer",
};

/** Transcribe bills each request for at least this many seconds of audio (AWS's pricing page). */
const TRANSCRIBE_MINIMUM_SECONDS = 15;

/**
 * State transitions a transcription job adds to the in-function path's one Transcribe state: the
 * first wait (`AwaitTranscription`) and the read, then three for each wait that ran out (the Pass
 * that counts it, the Choice, the next wait). Records written when the workflow polled instead
 * carry `polls`: four transitions each (Wait, GetTranscriptionJob, Choice, Pass).
 */
function serviceJobTransitions(job: { waits?: number | undefined; polls?: number | undefined }): number {
  if (job.waits !== undefined) return 2 + 3 * Math.max(0, job.waits - 1);
  return 4 * (job.polls ?? 1);
}

/** S3 GET/HEAD requests each stage's handler makes for its inputs (read from the handlers). */
const INPUT_READS: Partial<Record<StageFunction, number>> = {
  ingest: 2, // HEAD, then GET of the source
  transcribe: 1,
  reason: 1,
  synthesize: 1,
};

/** `Upload` sends a streamed body in parts of this size (its default), one PUT-tier request each. */
const MULTIPART_PART_BYTES = 5 * 1024 * 1024;

/** The definition whose paths count transitions; the ARNs do not change the path. */
const DEFINITION: AslDefinition = buildVoicemailDefinition({
  functionArns: Object.fromEntries(
    STAGE_FUNCTIONS.map((fn) => [fn, `arn:aws:lambda:us-east-1:000000000000:function:${fn}`]),
  ) as Record<StageFunction, string>,
});

/**
 * The usage of one job, from its report and activity records:
 *
 * - Lambda: one invocation per activity record, billed for the record's span (`startedAt` to
 *   `endedAt`, rounded up to 1 ms) at the memory the stacks give the function (`FUNCTION_SIZES`).
 *   The span starts in the handler, so cold starts and middleware are not in it: a lower bound.
 * - S3, as the handlers call it: per attempt one LIST (attempt number), one PUT for the activity
 *   record and one per output (a streamed reply above 5 MiB: its parts plus two); the reads of
 *   each stage's inputs (Ingest: HEAD and GET); the attempt that ends the job also LISTs the
 *   job's records, GETs each and PUTs the lineage summary. Plus the voicemail's own upload (one
 *   PUT, under Ingest) and the job claim (a LIST, and a PUT for a new claim or a GET of the
 *   latest, under Ingest).
 * - Step Functions: the states on the job's path through the definition (the failure path when
 *   the report names a failed stage) plus one per retry (attempt above 1); for Express, the time
 *   from the execution's start to the end of the last activity.
 * - Providers, by the billing unit each declares (`PROVIDER_REGISTRY`): stream seconds
 *   (`synthesize.total`) when a Sonic endpoint served the synthesis; reply-text characters for
 *   Cartesia's API; audio seconds for Cartesia's STT.
 * - A transcription job (a record with `serviceJob`): its record spans the wait for the service,
 *   so Lambda is billed for the start and read steps' own timings (two invocations), Transcribe
 *   for the audio (at least 15 s), and the workflow for four transitions per poll.
 * - EventBridge: one custom event per job-ending attempt (the outcome). The S3 event that starts
 *   the job is an AWS service event, which is free.
 *
 * @example
 * const { jobs } = await readJobs(store, { all: true });
 * const usage = jobUsage(jobs[0]);
 * usage.stages.find((stage) => stage.stage === "Transcribe")?.gbSeconds;
 */
export function jobUsage(job: JobData): JobUsage {
  const stages = new Map<string, StageUsage>();
  const billed = {
    sonicStreamSeconds: 0,
    cartesiaTtsCharacters: 0,
    cartesiaSttSeconds: 0,
    transcribeBilledSeconds: 0,
    customEvents: 0,
  };
  let serviceJobStates = 0;
  let retries = 0;
  for (const record of job.records) {
    const fn = functionOfRecord(record.stage);
    const usage = stages.get(record.stage) ?? emptyUsage(record.stage, fn);
    stages.set(record.stage, usage);
    const seconds = lambdaSeconds(record);
    usage.invocations += record.serviceJob ? 2 : 1;
    usage.seconds += seconds;
    usage.gbSeconds += (seconds * usage.memoryMb) / 1024;
    usage.s3Writes += 2 + record.outputs.reduce((sum, output) => sum + putRequests(output), 0);
    usage.s3Reads += INPUT_READS[fn] ?? 0;
    if (fn === "ingest" && record.attempt === 1) usage.s3Writes += 1; // the voicemail's upload
    if (fn === "ingest") {
      // The job claim: LIST the job's claims, then PUT the first one, or GET the latest (a retry
      // of Ingest, or a later run, finds one).
      usage.s3Writes += record.attempt === 1 ? 2 : 1;
      if (record.attempt > 1) usage.s3Reads += 1;
    }
    const endsJob = fn === "finalize" || fn === "recordFailure";
    if (endsJob && record.outcome === "succeeded") {
      usage.s3Writes += 2;
      usage.s3Reads += job.records.length;
      billed.customEvents += 1;
    }
    if (record.attempt > 1) retries += 1;
    const unit = billingUnit(fn, record);
    if (unit === "sonic-stream-seconds") {
      const total = record.timings.find((timing) => timing.name === "synthesize.total");
      billed.sonicStreamSeconds += (total?.ms ?? 0) / 1000;
    }
    if (unit === "cartesia-tts-characters") {
      billed.cartesiaTtsCharacters += record.inputs.find((input) => input.kind === "reply-text")?.bytes ?? 0;
    }
    const audioSeconds = (record.conditions?.audioMs ?? job.report?.source.audioMs ?? 0) / 1000;
    if (record.serviceJob) serviceJobStates += serviceJobTransitions(record.serviceJob);
    if (unit === "transcribe-audio-seconds") {
      billed.transcribeBilledSeconds += Math.max(TRANSCRIBE_MINIMUM_SECONDS, audioSeconds);
    }
    if (unit === "cartesia-stt-seconds") billed.cartesiaSttSeconds += audioSeconds;
  }
  const failedStage = job.report?.failure?.stage;
  return {
    jobId: job.jobId,
    stages: [...stages.values()],
    stateTransitions: statePath(DEFINITION, failedStage).length + retries + serviceJobStates,
    executionSeconds: executionSeconds(job),
    ...billed,
  };
}

/** What the cost report counts for a record's processor, as its provider declares (`billingUnitOf`). */
function billingUnit(fn: StageFunction, record: ActivityRecord): BillingUnit | undefined {
  const role = BILLED_ROLES[fn];
  const provider = record.processors[0]?.provider;
  return role === undefined || provider === undefined ? undefined : billingUnitOf(role, provider);
}

/**
 * The Lambda seconds of one record, rounded up to the millisecond: its span, or for a
 * transcription job (whose span includes the wait for the service) its two steps' own timings.
 */
function lambdaSeconds(record: ActivityRecord): number {
  const steps = record.serviceJob
    ? record.timings
        .filter((timing) => timing.name === "transcribe.startStep" || timing.name === "transcribe.readStep")
        .reduce((sum, timing) => sum + timing.ms, 0)
    : Date.parse(record.endedAt) - Date.parse(record.startedAt);
  return Math.ceil(steps) / 1000;
}

function functionOfRecord(stage: string): StageFunction {
  if ((VOICEMAIL_STAGES as readonly string[]).includes(stage)) return functionOf(stage as VoicemailStage);
  if (/^Record\w+Failure$/.test(stage)) return "recordFailure";
  throw new Error(`no stage function runs the stage ${JSON.stringify(stage)}`);
}

function emptyUsage(stage: string, fn: StageFunction): StageUsage {
  return {
    stage,
    fn,
    invocations: 0,
    seconds: 0,
    memoryMb: Number.parseInt(FUNCTION_SIZES[fn].memory, 10),
    gbSeconds: 0,
    s3Writes: 0,
    s3Reads: 0,
  };
}

/** PUT-tier requests that store one output: a streamed reply above one part goes up in parts. */
function putRequests(output: ActivityRecord["outputs"][number]): number {
  if (output.kind !== "reply-audio" || output.bytes <= MULTIPART_PART_BYTES) return 1;
  return Math.ceil(output.bytes / MULTIPART_PART_BYTES) + 2;
}

function executionSeconds(job: JobData): number {
  const ends = job.records.map((record) => Date.parse(record.endedAt));
  if (ends.length === 0) return 0;
  const start = job.report
    ? Date.parse(job.report.execution.startTime)
    : Math.min(...job.records.map((record) => Date.parse(record.startedAt)));
  return Math.max(0, Math.max(...ends) - start) / 1000;
}
