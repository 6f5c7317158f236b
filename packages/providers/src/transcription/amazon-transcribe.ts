import {
  GetTranscriptionJobCommand,
  type LanguageCode,
  type PiiEntityType,
  StartTranscriptionJobCommand,
  type TranscribeClient,
  type TranscriptionJob,
} from "@aws-sdk/client-transcribe";
import {
  InvalidInput,
  type Processor,
  type Transcript,
  TranscriptionFailed,
  type TranscriptionJobRequest,
  type TranscriptionJobStatus,
  type TranscriptionService,
} from "@voxtrail/core";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { observeSdkCalls } from "../aws/sdk-calls";
import { transcribeError } from "./transcribe-errors";
import { transcriptOfTranscribeOutput } from "./transcribe-output";

/** What job names start with unless configured. */
export const DEFAULT_TRANSCRIBE_JOB_PREFIX = "voxtrail-";

/** The characters Transcribe allows in a job name (`^[0-9a-zA-Z._-]+`), and its longest name. */
const JOB_NAME_CHARACTERS = /^[0-9a-zA-Z._-]*$/;
const JOB_NAME_MAX_LENGTH = 200;

/** The version of Amazon Transcribe's API the client speaks: Transcribe publishes no model versions. */
const TRANSCRIBE_API_VERSION = "2017-10-26";

/** How to reach Amazon Transcribe, and how to name its jobs. */
export interface AmazonTranscribeOptions {
  /** A Transcribe client; its region, credentials and endpoint decide where the audio is processed. */
  client: TranscribeClient;
  /**
   * What every job name starts with ({@link DEFAULT_TRANSCRIBE_JOB_PREFIX} by default): a stage's
   * `<app>-<stage>-` as deployed, so its roles can be granted its own jobs and no other stage's.
   * Only letters, digits, `.`, `_` and `-`.
   */
  jobNamePrefix?: string;
  /**
   * The role Transcribe assumes to read queued media and write their output. When given, every
   * job is started with job queueing on (`JobExecutionSettings.AllowDeferredExecution`): beyond
   * the account's concurrent jobs, Transcribe queues it (FIFO, up to its queue's size) instead of
   * refusing it with `LimitExceededException` ("Job queueing",
   * https://docs.aws.amazon.com/transcribe/latest/dg/job-queueing.html). Queueing needs this role
   * (JobExecutionSettings, API reference), and the caller needs `iam:PassRole` on it.
   */
  dataAccessRoleArn?: string;
  /**
   * What lineage records as the model behind the API, when it is not Amazon Transcribe's (a local
   * stand-in that speaks its API): model, version and endpoint. The boundary stays the client's.
   */
  describedAs?: Pick<Processor, "model" | "version" | "endpoint">;
}

/**
 * The Transcribe language code for a voicemail language: a BCP 47 tag with a region as it is
 * (`en-GB`), a bare language as the variant Transcribe offers for it (`en` -> `en-US`).
 */
const TRANSCRIBE_LANGUAGE_CODES: Record<string, string> = {
  en: "en-US",
  es: "es-US",
  fr: "fr-FR",
  de: "de-DE",
  it: "it-IT",
  pt: "pt-BR",
  ja: "ja-JP",
};

/**
 * Amazon Transcribe batch transcription as a {@link TranscriptionService}: `start` sends
 * `StartTranscriptionJob` on audio already in S3, with the output document written to our bucket at
 * the key asked for; the workflow waits for the job, reads that document, and `transcriptOf` turns
 * it into a transcript. The media format and sample rate are left for Transcribe to detect.
 *
 * Job names are `<prefix><jobId>-run-<run>`: the same for every retry of one run, so a start retried
 * after a lost answer meets `ConflictException` and resolves `already-started` (its own job).
 *
 * The processor's version is the API version (`2017-10-26`): Transcribe publishes no versions of the
 * models behind it. Its boundary is the AWS account in the client's region (`transcribe`).
 *
 * Failures are named ({@link transcribeError}): `TranscriptionRefused` (a request or media the service
 * will not take; the service's message, which names parameters and URIs), `TranscriptionThrottled`
 * (no capacity, after the SDK's own retries), `TranscriptionFailed` (anything else, by error name
 * and HTTP status only). An abort rejects with the abort itself.
 *
 * @example
 * const transcribe = await AmazonTranscribe.create({
 *   client: new TranscribeClient({}),
 *   jobNamePrefix: "voxtrail-prod-",
 * });
 * const jobName = transcribe.jobName("vm-0a1b2c3d4e5f60718293", 1); // "voxtrail-prod-vm-0a1b2c3d4e5f60718293-run-1"
 * await transcribe.start({
 *   jobName,
 *   mediaUri: "s3://voxtrail-prod-bucket/artifacts/vm-0a1b2c3d4e5f60718293/normalized.wav",
 *   outputBucket: "voxtrail-prod-bucket",
 *   outputKey: "artifacts/vm-0a1b2c3d4e5f60718293/transcribe-output.json",
 *   language: "en-US",
 * }); // "started", or "already-started" on a retry
 * const transcript = transcribe.transcriptOf(JSON.parse(outputDocument), { language: "en-US", audioMs });
 */
export class AmazonTranscribe implements TranscriptionService {
  readonly processor: Processor;
  readonly #client: TranscribeClient;
  readonly #prefix: string;
  readonly #dataAccessRoleArn: string | undefined;

  private constructor(
    client: TranscribeClient,
    prefix: string,
    dataAccessRoleArn: string | undefined,
    processor: Processor,
  ) {
    this.#client = client;
    this.#prefix = prefix;
    this.#dataAccessRoleArn = dataAccessRoleArn;
    this.processor = processor;
    observeSdkCalls(client, "transcribe");
  }

  /**
   * A service whose processor names the region the client resolved. A prefix with characters
   * Transcribe does not allow in a job name is `InvalidInput`.
   */
  static async create(options: AmazonTranscribeOptions): Promise<AmazonTranscribe> {
    const prefix = options.jobNamePrefix ?? DEFAULT_TRANSCRIBE_JOB_PREFIX;
    if (!JOB_NAME_CHARACTERS.test(prefix)) {
      throw new InvalidInput(
        "the transcription job name prefix may hold only letters, digits, '.', '_' and '-'",
      );
    }
    return new AmazonTranscribe(options.client, prefix, options.dataAccessRoleArn, {
      provider: "amazon-transcribe",
      model: "transcribe-batch",
      version: TRANSCRIBE_API_VERSION,
      ...options.describedAs,
      boundary: await awsAccountBoundary(options.client, "transcribe"),
    });
  }

  /**
   * `<prefix><jobId>-run-<run>`. A name Transcribe would not take (other characters, over 200
   * characters long) is `InvalidInput`.
   */
  jobName(jobId: string, run: number): string {
    if (!Number.isSafeInteger(run) || run < 0) {
      throw new InvalidInput("a transcription job's run must be a whole number, 0 or more");
    }
    const name = `${this.#prefix}${jobId}-run-${run}`;
    if (!JOB_NAME_CHARACTERS.test(name)) {
      throw new InvalidInput(
        "a transcription job name may hold only letters, digits, '.', '_' and '-'; the job id holds others",
      );
    }
    if (name.length > JOB_NAME_MAX_LENGTH) {
      throw new InvalidInput(
        `a transcription job name may be ${JOB_NAME_MAX_LENGTH} characters long; this one would be ${name.length}`,
      );
    }
    return name;
  }

  /** Starts the job; `already-started` when a job of that name exists (a retried start's own). */
  async start(request: TranscriptionJobRequest): Promise<"started" | "already-started"> {
    try {
      await this.#client.send(
        new StartTranscriptionJobCommand({
          TranscriptionJobName: request.jobName,
          ...(request.languageOptions
            ? { IdentifyLanguage: true, LanguageOptions: request.languageOptions.map(languageCode) }
            : { LanguageCode: languageCode(request.language) }),
          Media: { MediaFileUri: request.mediaUri },
          OutputBucketName: request.outputBucket,
          OutputKey: request.outputKey,
          ...contentRedaction(request),
          ...(this.#dataAccessRoleArn === undefined
            ? {}
            : {
                JobExecutionSettings: {
                  AllowDeferredExecution: true,
                  DataAccessRoleArn: this.#dataAccessRoleArn,
                },
              }),
        }),
        { abortSignal: request.signal },
      );
      return "started";
    } catch (error) {
      if (isConflict(error)) return "already-started";
      throw transcribeError(error);
    }
  }

  /** `GetTranscriptionJob`: the job's status and the service's own times. */
  async describe(jobName: string, options: { signal?: AbortSignal } = {}): Promise<TranscriptionJobStatus> {
    let job: TranscriptionJob | undefined;
    try {
      ({ TranscriptionJob: job } = await this.#client.send(
        new GetTranscriptionJobCommand({ TranscriptionJobName: jobName }),
        { abortSignal: options.signal },
      ));
    } catch (error) {
      throw transcribeError(error);
    }
    const status = job?.TranscriptionJobStatus;
    if (status !== "QUEUED" && status !== "IN_PROGRESS" && status !== "COMPLETED" && status !== "FAILED") {
      throw new TranscriptionFailed(`Amazon Transcribe described ${jobName} with no status it documents`);
    }
    return {
      status,
      ...(job?.FailureReason === undefined ? {} : { failureReason: job.FailureReason }),
      ...(job?.LanguageCode === undefined ? {} : { languageCode: job.LanguageCode }),
      ...(job?.CreationTime ? { createdAt: job.CreationTime.toISOString() } : {}),
      ...(job?.StartTime ? { startedAt: job.StartTime.toISOString() } : {}),
      ...(job?.CompletionTime ? { completedAt: job.CompletionTime.toISOString() } : {}),
    };
  }

  /** The transcript in the job's output document, made by this service's processor. */
  transcriptOf(document: unknown, context: { language: string; audioMs: number }): Transcript {
    return transcriptOfTranscribeOutput(document, {
      language: context.language,
      audioMs: context.audioMs,
      processor: this.processor,
    });
  }
}

/** {@link TRANSCRIBE_LANGUAGE_CODES}; a language Transcribe is not set up for here is `InvalidInput`. */
function languageCode(language: string): LanguageCode {
  if (/^[a-z]{2}-[A-Z]{2}$/.test(language)) return language as LanguageCode;
  const code = TRANSCRIBE_LANGUAGE_CODES[language];
  if (code === undefined) {
    throw new InvalidInput(
      `no Amazon Transcribe language code for ${JSON.stringify(language.slice(0, 20))}: give a tag with its region, e.g. en-GB`,
    );
  }
  return code as LanguageCode;
}

/** The languages Transcribe's batch PII redaction works in (docs/redaction.md). */
export const TRANSCRIBE_REDACTION_LANGUAGES: readonly string[] = ["en-US", "es-US"];

/**
 * The start's `ContentRedaction` when the stage redacts and the job's language has Transcribe's
 * redaction; nothing otherwise (another language, or a call whose language Transcribe identifies:
 * redaction cannot be combined with language identification), leaving our own redactor alone to
 * redact that call.
 */
export function contentRedaction(
  request: Pick<TranscriptionJobRequest, "redaction" | "language" | "languageOptions">,
): {
  ContentRedaction?: {
    RedactionType: "PII";
    RedactionOutput: "redacted" | "redacted_and_unredacted";
    PiiEntityTypes?: PiiEntityType[];
  };
} {
  if (request.redaction === undefined || request.languageOptions !== undefined) return {};
  let code: string;
  try {
    code = languageCode(request.language);
  } catch {
    return {};
  }
  if (!TRANSCRIBE_REDACTION_LANGUAGES.includes(code)) return {};
  const { output, piiEntityTypes } = request.redaction;
  return {
    ContentRedaction: {
      RedactionType: "PII",
      RedactionOutput: output,
      ...(piiEntityTypes ? { PiiEntityTypes: piiEntityTypes as PiiEntityType[] } : {}),
    },
  };
}

/** Transcribe's answer to a job name that exists already. */
function isConflict(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { name?: unknown }).name === "ConflictException"
  );
}
