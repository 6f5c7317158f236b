import { createHash } from "node:crypto";
import { normalizeForTranscription } from "@voxtrail/audio";
import {
  callLanguage,
  type DuplicateDelivery,
  InvalidAudio,
  type Processor,
  round,
  type SourceRef,
} from "@voxtrail/core";
import {
  ARTIFACT_FILES,
  jobIdFor,
  keys,
  type SourceIdentity,
  STAGE_DURATION_METRICS,
} from "@voxtrail/workflow";
import { putArtifact } from "../artifacts";
import { voicemailRunEnding } from "../claims/job-claim";
import { openClaimedJob } from "../claims/open-claimed-job";
import {
  defineStage,
  type KernelDependencies,
  type Opening,
  type StageNeeds,
} from "../kernel/stage-definition";
import { IngestInput, type JobState } from "../state";

/** The normaliser is our own code running where the handler runs. */
const NORMALIZER: Omit<Processor, "boundary"> = {
  provider: "voxtrail",
  model: "wav-normalizer",
  version: "1",
};

/**
 * Ingest: first claims the job for this execution (`openClaimedJob`: the event must name the
 * stage's bucket; a duplicate delivery of an upload whose job
 * another execution owns returns `{ jobId, duplicate }` and does nothing else); then reads the
 * voicemail the event points at, checks it is audio the pipeline can decode
 * (`InvalidAudio` otherwise, with what is wrong), and writes a 16 kHz mono PCM copy for the
 * transcriber. Returns the job state every later stage reads.
 */
export const ingestStage = defineStage<StageNeeds<"executions" | "maxSourceBytes" | "languages">>()({
  name: "Ingest",
  input: IngestInput,
  flows: (deps) => [{ processor: normalizerOf(deps), kinds: ["source-audio", "normalized-audio"] }],
  open: async (
    input,
    { deps },
  ): Promise<Opening<JobState | DuplicateDelivery, { identity: SourceIdentity; run: number }>> => {
    const job = await openClaimedJob(input, deps, { jobIdOf: jobIdFor, ending: voicemailRunEnding });
    if (!job.claimed) return { jobId: job.jobId, done: job.done };
    return { jobId: job.jobId, inputs: [], carry: { identity: job.identity, run: job.run } };
  },
  run: async (input, { deps, activity, clock }, { identity, run }): Promise<JobState> => {
    // The key as S3's API takes it (decoded from an S3 event's form encoding), never `object.key`.
    const { key } = identity;
    const jobId = jobIdFor(identity);
    // Exactly the object the event named: its version, or the current object only while its etag
    // is the event's (another upload to the key is another event, and another job).
    const named = { versionId: identity.versionId, etag: identity.etag };
    const head = await deps.store.head(key, named);
    if (head && head.bytes > deps.maxSourceBytes) {
      throw new InvalidAudio(`file is ${head.bytes} bytes; the limit is ${deps.maxSourceBytes} bytes`);
    }
    // A stage that names its languages finds the call's before reading it: one it does not take fails here.
    const language = deps.languages
      ? callLanguage({ key, metadata: head?.language, languages: deps.languages })
      : undefined;
    const bytes = await deps.store.getBytes(key, named);
    const versionId = input.event.detail.object["version-id"];
    const source: SourceRef = {
      kind: "source-audio",
      uri: deps.store.uri(key),
      key,
      bucket: identity.bucket,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      bytes: bytes.length,
      contentType: head?.contentType ?? "application/octet-stream",
      ...(versionId ? { versionId } : {}),
      ...(identity.etag ? { etag: identity.etag } : {}),
    };
    activity.inputs.push(source);
    activity.processors.push(normalizerOf(deps));
    const normalized = normalizeForTranscription(bytes);
    const normalizedAudio = await putArtifact(
      deps.store,
      "normalized-audio",
      keys.artifact(jobId, ARTIFACT_FILES.normalizedAudio),
      normalized.wav,
      "audio/wav",
    );
    activity.outputs.push(normalizedAudio);
    activity.measures.audioMs = normalized.durationMs;
    clock.mark("normalized.durable");
    const queueDelayMs = Date.parse(input.execution.startTime) - Date.parse(input.event.time);
    activity.timings.push(
      {
        name: "ingest.queueDelay",
        startEvent: "s3.eventTime",
        endEvent: "execution.start",
        ms: round(Math.max(0, queueDelayMs)),
      },
      clock.timing(STAGE_DURATION_METRICS.Ingest, "handler.start", "normalized.durable"),
    );
    return {
      jobId,
      run,
      source,
      audioMs: normalized.durationMs,
      eventTime: input.event.time,
      execution: input.execution,
      normalizedAudio,
      timings: activity.timings,
      ...(language === undefined ? {} : { language }),
    };
  },
});

/** The normaliser: our own code, running where the handler runs. */
function normalizerOf(deps: Pick<KernelDependencies, "compute">): Processor {
  return { ...NORMALIZER, boundary: deps.compute };
}
