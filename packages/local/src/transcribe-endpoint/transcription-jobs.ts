import { normalizeForTranscription } from "@voxtrail/audio";
import {
  InvalidAudio,
  type ObjectStore,
  redactTranscript,
  type Transcriber,
  type Transcript,
} from "@voxtrail/core";
import { openTempDir, removeTempDir } from "@voxtrail/functions/kernel";
import { transcribeRedactedOutputKey } from "@voxtrail/workflow";
import type { TranscribeEndpointFaults } from "./faults";
import { type JobExecutionSettings, jobExecutionSettings } from "./job-execution-settings";
import { type JobLanguageSettings, jobLanguageOf } from "./job-languages";
import { type JobRunTime, jobRunTimeMs, untilTime } from "./job-run-time";
import { JobSlots, type ReleaseSlot } from "./job-slots";
import { jobStateChangeEvent, type TranscribeJobStateChangeEvent } from "./job-state-change";
import { ServiceError } from "./json-protocol";
import { transcribeOutputDocument } from "./transcribe-output-document";
import type { QuotaUse, TranscribeQuotas } from "./transcribe-quotas";

/** A job as `GetTranscriptionJob` describes it (the fields this stand-in keeps). */
export interface TranscriptionJob {
  TranscriptionJobName: string;
  TranscriptionJobStatus: "QUEUED" | "IN_PROGRESS" | "COMPLETED" | "FAILED";
  /** The language asked for, or (with `IdentifyLanguage`) the one identified once the job ran. */
  LanguageCode?: string;
  IdentifyLanguage?: boolean;
  LanguageOptions?: string[];
  Media: { MediaFileUri: string };
  /** Epoch seconds, as JSON 1.1 carries timestamps. */
  CreationTime: number;
  /** When the job left the queue and began (absent while `QUEUED`). */
  StartTime?: number;
  CompletionTime?: number;
  FailureReason?: string;
  Transcript?: { TranscriptFileUri?: string; RedactedTranscriptFileUri?: string };
  JobExecutionSettings?: JobExecutionSettings;
  /** The start's `ContentRedaction` (docs/redaction.md), as given. */
  ContentRedaction?: { RedactionType: "PII"; RedactionOutput: "redacted" | "redacted_and_unredacted" };
}

/** How the jobs run: the account and region they belong to, their quotas, pace, faults and events. */
export interface TranscriptionJobSettings extends JobLanguageSettings {
  /** The account id written into output documents and state-change events. */
  accountId: string;
  /** The region named by state-change events. */
  region: string;
  quotas: TranscribeQuotas;
  /** How long a job runs for its audio's length; as fast as the recogniser goes when unset. */
  runTime?: JobRunTime;
  faults?: Pick<TranscribeEndpointFaults, "failJobsWith" | "stallJobs">;
  /** Called, synchronously, as each job ends `COMPLETED` or `FAILED`; it must not throw. */
  onJobStateChange?: (event: TranscribeJobStateChangeEvent) => void;
}

const JOB_NAME = /^[0-9a-zA-Z._-]{1,200}$/;
/** The reason Transcribe gives for media it cannot decode. */
const UNSUPPORTED_MEDIA = "Unsupported media format";

/**
 * The stand-in's transcription jobs, by name: started from a request, run in the background on the
 * embedded recogniser over media read from `store`, their output written back into `store` where
 * the request said. Refusals are the service's (`BadRequestException`, `ConflictException`,
 * `NotFoundException`, and the concurrency and queue limits of {@link JobSlots}); a job whose media
 * is not audio ends `FAILED` with Transcribe's reason. A job that ends emits Transcribe's
 * EventBridge event to `onJobStateChange`. A job that fails ends as soon as it fails, whatever
 * `runTime` says.
 *
 * @example
 * const jobs = new TranscriptionJobs(store, new PocketsphinxTranscriber(), {
 *   accountId: "000000000000", region: "us-east-1", quotas: transcribeQuotas(),
 * });
 * jobs.start(request.body); // then jobs.get(name) until COMPLETED
 */
export class TranscriptionJobs {
  readonly #jobs = new Map<string, TranscriptionJob>();
  readonly #running = new Set<Promise<void>>();
  readonly #slots: JobSlots;

  constructor(
    private readonly store: ObjectStore,
    private readonly transcriber: Transcriber,
    private readonly settings: TranscriptionJobSettings,
  ) {
    this.#slots = new JobSlots(settings.quotas);
  }

  /** `StartTranscriptionJob`: checks the request, records the job, and runs it in the background. */
  start(body: Record<string, unknown>): TranscriptionJob {
    const name = body.TranscriptionJobName;
    if (typeof name !== "string" || !JOB_NAME.test(name)) {
      throw badRequest(
        "1 validation error detected: Value at 'transcriptionJobName' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[0-9a-zA-Z._-]+",
      );
    }
    if (this.#jobs.has(name)) {
      throw new ServiceError(
        400,
        "ConflictException",
        "The requested job name already exists. Use a different job name.",
      );
    }
    const media = (body.Media as { MediaFileUri?: unknown } | undefined)?.MediaFileUri;
    const mediaKey = typeof media === "string" ? this.#keyOf(media) : undefined;
    if (mediaKey === undefined)
      throw badRequest(`Media.MediaFileUri must be s3://${this.store.bucket}/<key>`);
    const language = jobLanguageOf(body, this.settings);
    if (typeof language === "string") throw badRequest(language);
    const outputKey = body.OutputKey;
    if (
      body.OutputBucketName !== this.store.bucket ||
      typeof outputKey !== "string" ||
      !outputKey.endsWith(".json")
    ) {
      throw badRequest(`OutputBucketName must be ${this.store.bucket} and OutputKey a key ending in .json`);
    }
    const execution = jobExecutionSettings(body.JobExecutionSettings);
    const redaction = contentRedactionOf(body.ContentRedaction);
    // As Amazon Transcribe: batch redaction works in en-US and es-US, and not with identification.
    if (redaction && !("code" in language && ["en-US", "es-US"].includes(language.code)))
      throw badRequest(
        "ContentRedaction is supported for en-US and es-US only, and not with IdentifyLanguage",
      );
    const job: TranscriptionJob = {
      TranscriptionJobName: name,
      TranscriptionJobStatus: "QUEUED",
      ...("code" in language
        ? { LanguageCode: language.code }
        : { IdentifyLanguage: true, LanguageOptions: language.identifyAmong }),
      Media: { MediaFileUri: media as string },
      CreationTime: Date.now() / 1000,
      ...(execution ? { JobExecutionSettings: execution } : {}),
      ...(redaction ? { ContentRedaction: redaction } : {}),
    };
    this.#jobs.set(name, job);
    try {
      this.#slots.acquire(execution?.AllowDeferredExecution === true, (release) =>
        this.#begin(job, mediaKey, outputKey, release),
      );
    } catch (error) {
      this.#jobs.delete(name);
      throw error;
    }
    return { ...job };
  }

  /** Each job quota's peak use: running jobs, queued jobs, and queued jobs running at once. */
  quotaUse(): QuotaUse[] {
    return this.#slots.use();
  }

  /** `GetTranscriptionJob`. */
  get(name: unknown): TranscriptionJob {
    return { ...this.#job(name) };
  }

  /** The names of the jobs started and not deleted. */
  names(): string[] {
    return [...this.#jobs.keys()];
  }

  /** `DeleteTranscriptionJob`: forgets the job (its output stays, as Transcribe's does). */
  delete(name: unknown): void {
    this.#jobs.delete(this.#job(name).TranscriptionJobName);
  }

  /**
   * Resolves once every job started so far has ended, queued ones included as they leave the queue
   * (not those behind stalled jobs, which never leave it).
   */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
  }

  /** Runs a job that got its slot, unless it was deleted while queued; frees the slot as it ends. */
  #begin(job: TranscriptionJob, mediaKey: string, outputKey: string, release: ReleaseSlot): void {
    if (this.#jobs.get(job.TranscriptionJobName) !== job) {
      release();
      return;
    }
    job.TranscriptionJobStatus = "IN_PROGRESS";
    job.StartTime = Date.now() / 1000;
    if (this.settings.faults?.stallJobs) return;
    const run = this.#run(job, mediaKey, outputKey).finally(() => {
      this.#running.delete(run);
      release();
    });
    this.#running.add(run);
  }

  async #run(job: TranscriptionJob, mediaKey: string, outputKey: string): Promise<void> {
    const startedAt = Date.now();
    try {
      const { failJobsWith } = this.settings.faults ?? {};
      if (failJobsWith !== undefined) throw new JobFailure(failJobsWith);
      const { wav, durationMs } = normalizeForTranscription(await this.store.getBytes(mediaKey));
      const ends = untilTime(startedAt + jobRunTimeMs(this.settings.runTime, durationMs));
      const identify = this.settings.identifyLanguage;
      if (job.LanguageCode === undefined && identify) {
        job.LanguageCode = await identify(wav, job.LanguageOptions ?? []);
      }
      const transcript = await this.#transcribe(wav, job.LanguageCode ?? "");
      const document = transcribeOutputDocument(
        job.TranscriptionJobName,
        this.settings.accountId,
        transcript,
      );
      const redaction = job.ContentRedaction?.RedactionOutput;
      if (redaction !== "redacted")
        await this.store.put(outputKey, JSON.stringify(document), { contentType: "application/json" });
      const redactedKey = transcribeRedactedOutputKey(outputKey);
      if (redaction !== undefined) {
        const redacted = transcribeOutputDocument(
          job.TranscriptionJobName,
          this.settings.accountId,
          standInPiiRedaction(transcript),
        );
        await this.store.put(redactedKey, JSON.stringify(redacted), { contentType: "application/json" });
      }
      await ends;
      job.Transcript = {
        ...(redaction !== "redacted" ? { TranscriptFileUri: this.store.uri(outputKey) } : {}),
        ...(redaction !== undefined ? { RedactedTranscriptFileUri: this.store.uri(redactedKey) } : {}),
      };
      job.TranscriptionJobStatus = "COMPLETED";
    } catch (error) {
      job.TranscriptionJobStatus = "FAILED";
      job.FailureReason =
        error instanceof JobFailure
          ? error.message
          : error instanceof InvalidAudio
            ? UNSUPPORTED_MEDIA
            : "Internal failure";
    }
    job.CompletionTime = Date.now() / 1000;
    this.settings.onJobStateChange?.(
      jobStateChangeEvent(
        {
          TranscriptionJobName: job.TranscriptionJobName,
          TranscriptionJobStatus: job.TranscriptionJobStatus,
          ...(job.FailureReason === undefined ? {} : { FailureReason: job.FailureReason }),
        },
        this.settings.accountId,
        this.settings.region,
      ),
    );
  }

  /**
   * Runs the recogniser with its temp files in a new directory under the process's temp root,
   * removed when it ends (if this process is cut off first, when it exits).
   */
  async #transcribe(wav: Uint8Array, language: string) {
    const tmpDir = await openTempDir("transcription-job");
    try {
      return await this.transcriber.transcribe(wav, { language, tmpDir });
    } finally {
      await removeTempDir(tmpDir);
    }
  }

  #job(name: unknown): TranscriptionJob {
    const job = typeof name === "string" ? this.#jobs.get(name) : undefined;
    if (!job) {
      throw new ServiceError(
        400,
        "NotFoundException",
        "The requested job couldn't be found. Check the job name and try your request again.",
      );
    }
    return job;
  }

  /** The store key of `s3://<the store's bucket>/<key>`, or `undefined` for any other URI. */
  #keyOf(uri: string): string | undefined {
    const prefix = `s3://${this.store.bucket}/`;
    return uri.startsWith(prefix) && uri.length > prefix.length ? uri.slice(prefix.length) : undefined;
  }
}

/** A job failure a fault asked for, with its reason. */
class JobFailure extends Error {}

function badRequest(message: string): ServiceError {
  return new ServiceError(400, "BadRequestException", message);
}

/** The start's `ContentRedaction`, checked as Transcribe checks it; undefined when absent. */
function contentRedactionOf(value: unknown): TranscriptionJob["ContentRedaction"] {
  if (value === undefined) return undefined;
  const { RedactionType, RedactionOutput } = (value ?? {}) as Record<string, unknown>;
  if (
    RedactionType !== "PII" ||
    (RedactionOutput !== "redacted" && RedactionOutput !== "redacted_and_unredacted")
  )
    throw badRequest(
      "ContentRedaction needs RedactionType PII and RedactionOutput redacted or redacted_and_unredacted",
    );
  return { RedactionType, RedactionOutput };
}

/**
 * What stands in for Transcribe's PII redaction here: phone numbers (any run of seven digits or
 * more, said or written) become `[PII]`, as Transcribe writes a redacted item. Transcribe's other
 * types (names, addresses, ...) are not imitated: our own redactor runs after it either way.
 */
function standInPiiRedaction(transcript: Transcript): Transcript {
  const redacted = redactTranscript(transcript, { numbers: [], names: [], minDigits: 7 }).transcript;
  const pii = (text: string) => text.replace(/\[[A-Z_]+\]/g, "[PII]");
  return {
    ...redacted,
    text: pii(redacted.text),
    words: redacted.words.map((word) => ({ ...word, word: pii(word.word) })),
  };
}
