import type { AudioFormat } from "./audio-format";
import type { Processor } from "./boundary";
import type { RedactionSettings } from "./redaction/redaction-settings";
import type { RedactionTerms } from "./redaction/redactor";
import type { Timing } from "./timing";
import type { StreamDelivery } from "./timing-sample";
import type { Transcript } from "./transcript";
import type { BusinessRecord, Entities, VoicemailRecord } from "./voicemail-record";

/** Turns 16 kHz mono 16-bit PCM WAV into a transcript. */
export interface Transcriber {
  readonly processor: Processor;
  /** Stops, rejecting, when `signal` aborts (the attempt ran out of time). */
  transcribe(
    wav16k: Uint8Array,
    options: {
      language: string;
      signal?: AbortSignal;
      /**
       * An existing directory for any temp file the call writes (the stage attempt's, removed with
       * its content when the attempt ends, however it ends). A transcriber that writes temp files
       * makes them there, never elsewhere, when given one.
       */
      tmpDir?: string;
    },
  ): Promise<Transcript>;
}

/** What a transcription job is started with: its name, the audio's and the output's S3 locations. */
export interface TranscriptionJobRequest {
  /** Unique per job run, so a retried start finds its own job. */
  jobName: string;
  /** The audio, `s3://bucket/key`. */
  mediaUri: string;
  /** Where the service writes its output document: a key of our bucket ending in `.json`. */
  outputBucket: string;
  outputKey: string;
  language: string;
  /**
   * When set (the call's language is not known), the service identifies it among these
   * (Transcribe's `IdentifyLanguage` with `LanguageOptions`) and `language` is not sent.
   */
  languageOptions?: readonly string[];
  /**
   * Transcribe's own PII redaction (`ContentRedaction`, docs/redaction.md), where the language has
   * it (en-US, es-US); our redactor runs after it either way.
   */
  redaction?: RedactionSettings;
  signal?: AbortSignal;
}

/**
 * Transcription as a job on a managed service (Amazon Transcribe): started on audio in S3, waited
 * for by the workflow, then read back from the output document the service wrote.
 */
export interface TranscriptionService {
  readonly processor: Processor;
  /** The job name of run `run` of voxtrail job `jobId`: the same for every retry of that run. */
  jobName(jobId: string, run: number): string;
  /**
   * Starts the job. `already-started` when a job of that name exists: a retried start's own job,
   * to wait for. `TranscriptionRefused` for a request or audio the service will not take,
   * `TranscriptionThrottled` when it has no capacity now.
   */
  start(request: TranscriptionJobRequest): Promise<"started" | "already-started">;
  /**
   * How the job stands now, as the service reports it (status and its own times; no caller data).
   * `TranscriptionThrottled` when the service's request rate is used up.
   */
  describe(jobName: string, options?: { signal?: AbortSignal }): Promise<TranscriptionJobStatus>;
  /** The transcript in the job's output document; `TranscriptionFailed` for another shape. */
  transcriptOf(document: unknown, context: { language: string; audioMs: number }): Transcript;
}

/** A transcription job as the service reports it: where it stands, and its own times (ISO 8601). */
export interface TranscriptionJobStatus {
  status: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "FAILED";
  /** The service's reason, when the job failed. */
  failureReason?: string;
  /** The job's language: the one asked for, or the one the service identified. */
  languageCode?: string;
  createdAt?: string;
  startedAt?: string;
  completedAt?: string;
}

/**
 * Resumes a workflow that waits on a task token (Step Functions' callback pattern,
 * `.waitForTaskToken`): the waiting Task state ends with `output` as its result.
 */
export interface WorkflowCallback {
  /**
   * Sends `output` to the task waiting on `taskToken`: `resumed`, or `gone` when no task waits on
   * it any more (its wait timed out, its execution ended, or it was resumed already).
   */
  resume(taskToken: string, output: Record<string, unknown>): Promise<"resumed" | "gone">;
}

/** Finds the business record a voicemail refers to. */
export interface RecordLookup {
  readonly processor: Processor;
  /** The first record matching an entity, trying order, account, then callback number. */
  find(entities: Entities): Promise<{ matchedOn: string; record: BusinessRecord } | undefined>;
  /**
   * How many digits every order number of the records has, and every account number (a kind
   * without one shared length is left out): a reasoner holds a number of another length for
   * review. Lookups that cannot tell leave it out.
   */
  numberLengths?(): Promise<ReferenceLengths>;
  /** What the redactor looks for that the records define: their numbers and callers' names (docs/redaction.md). */
  redactionTerms?(): RedactionTerms;
}

/**
 * How many digits the business's own numbers have, by the word that announces them ("order
 * number ...", "account ..."); a kind left out has no fixed length.
 */
export interface ReferenceLengths {
  order?: number;
  account?: number;
}

/** Turns a transcript into the voicemail's structured record, using the record lookup. */
export interface Reasoner {
  readonly processor: Processor;
  /** Stops, rejecting, when `signal` aborts (the attempt ran out of time). */
  reason(
    transcript: Transcript,
    records: RecordLookup,
    options?: { signal?: AbortSignal },
  ): Promise<VoicemailRecord>;
}

/** What to say and how it should sound. */
export interface SynthesisRequest {
  text: string;
  language: string;
  format: AudioFormat;
  voiceId?: string;
  /** When it aborts (the attempt ran out of time), the stream stops: the request is dropped. */
  signal?: AbortSignal;
}

/**
 * A synthesis in progress: iterate it for raw audio chunks in the requested format; `timings()`
 * is complete once iteration ends.
 */
export interface SynthesisStream extends AsyncIterable<Uint8Array> {
  timings(): Timing[];
  /** Every gap between audio chunks, the stalls and the real-time factor, once iteration ends. */
  delivery?(): StreamDelivery;
}

/** Streams speech for a text. */
export interface Synthesizer {
  readonly processor: Processor;
  /**
   * The languages it speaks (ISO 639-1 codes, e.g. `en`), when it declares them: a request in any
   * other language is not spoken, whatever audio comes back.
   */
  readonly languages?: readonly string[];
  /**
   * What speaks `language` (ISO 639-1), where that differs by language (the local endpoint: flite
   * for English, espeak-ng for Spanish): lineage records it instead of `processor`.
   */
  processorFor?(language: string): Processor;
  synthesize(request: SynthesisRequest): SynthesisStream;
}
