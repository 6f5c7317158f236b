import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ObjectStore, Transcriber } from "@voxtrail/core";
import { PocketsphinxTranscriber } from "@voxtrail/providers";
import type { TranscribeEndpointFaults } from "./faults";
import type { JobLanguageSettings } from "./job-languages";
import { checkJobRunTime, type JobRunTime } from "./job-run-time";
import type { TranscribeJobStateChangeEvent } from "./job-state-change";
import { answer, readJsonRequest, ServiceError } from "./json-protocol";
import { OperationRate } from "./operation-rate";
import { type QuotaUse, type TranscribeQuotas, transcribeQuotas } from "./transcribe-quotas";
import { TranscriptionJobs } from "./transcription-jobs";

/** How to start the local Transcribe endpoint. */
export interface TranscribeEndpointOptions {
  /** The store that stands in for S3: media is read from it, output written into it. */
  store: ObjectStore;
  /** The recogniser behind the endpoint; pocketsphinx by default. */
  transcriber?: Transcriber;
  /** The account id written into output documents; a placeholder by default. */
  accountId?: string;
  /** The region named by state-change events; `us-east-1` by default. */
  region?: string;
  /** Failures to show, for tests (none by default). */
  faults?: TranscribeEndpointFaults;
  /**
   * Quotas to enforce ({@link TranscribeQuotas}); unset ones are {@link DEFAULT_TRANSCRIBE_QUOTAS}:
   * AWS's job quotas and no request rate. A load rehearsal passes {@link AWS_TRANSCRIBE_QUOTAS}.
   */
  quotas?: Partial<TranscribeQuotas>;
  /** How long a job runs for its audio's length; by default as long as the recogniser takes. */
  jobRunTime?: JobRunTime;
  /** Called as each job ends `COMPLETED` or `FAILED`, with the event EventBridge would deliver. */
  onJobStateChange?: (event: TranscribeJobStateChangeEvent) => void;
  /** The language codes it takes (English by default) and how it identifies one: {@link JobLanguageSettings}. */
  languageCodes?: JobLanguageSettings["languageCodes"];
  identifyLanguage?: JobLanguageSettings["identifyLanguage"];
}

export type { TranscribeEndpointFaults } from "./faults";
export type { JobRunTime } from "./job-run-time";
export type { TranscribeJobStateChangeEvent } from "./job-state-change";
export {
  AWS_TRANSCRIBE_QUOTAS,
  DEFAULT_TRANSCRIBE_QUOTAS,
  type QuotaUse,
  type TranscribeQuotas,
} from "./transcribe-quotas";

/** A running local Transcribe endpoint. */
export interface TranscribeEndpoint {
  /** Base URL to give a Transcribe client as its `endpoint`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Resolves once every job started so far has ended. */
  settled(): Promise<void>;
  /** How many requests of each operation it has answered, refusals included. */
  requests(): Readonly<Record<string, number>>;
  /** The names of the jobs it has started. */
  jobNames(): string[];
  /**
   * Each quota's peak use so far against its limit: `concurrentJobs`, `queuedJobs`,
   * `queueBandwidth` (queued jobs running at once), and the requests that arrived in any one
   * second for `startTranscriptionJobPerSecond` and `getTranscriptionJobPerSecond`.
   */
  quotaUse(): QuotaUse[];
  /**
   * The HTTP server behind `url`: a load rehearsal hands it in-memory connections
   * (`server.emit("connection", socket)`) so its requests need no TCP.
   */
  httpServer: Server;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a local endpoint that speaks Amazon Transcribe's batch API as the AWS SDK sends it (JSON
 * 1.1: `StartTranscriptionJob`, `GetTranscriptionJob`, `DeleteTranscriptionJob`), backed by the
 * embedded recogniser, as the local Sonic endpoint is backed by flite: a job reads its media from
 * `store` by its `s3://` URI and writes Transcribe's output document into `store` at `OutputKey`.
 * What differs from Transcribe: English only, the output bucket must be the store's and the key
 * must end in `.json`, there is no punctuation, and requests are not signature-checked.
 *
 * It enforces Transcribe's quotas ({@link TranscribeQuotas}): concurrent jobs and the job queue
 * (AWS's defaults unless `quotas` says otherwise), and, when `quotas` sets them, the requests per
 * second of `StartTranscriptionJob` and `GetTranscriptionJob`, beyond which it answers 400
 * `LimitExceededException` ("Rate exceeded"), the error the Transcribe API reference gives for too
 * many requests (https://docs.aws.amazon.com/transcribe/latest/APIReference/API_StartTranscriptionJob.html).
 *
 * @example
 * const endpoint = await startTranscribeEndpoint({ store });
 * const client = new TranscribeClient({ endpoint: endpoint.url, region: "us-east-1", credentials });
 * await client.send(new StartTranscriptionJobCommand({ ... }));
 * await endpoint.close();
 */
export async function startTranscribeEndpoint(
  options: TranscribeEndpointOptions,
): Promise<TranscribeEndpoint> {
  const faults = { ...options.faults };
  const quotas = transcribeQuotas(options.quotas);
  checkJobRunTime(options.jobRunTime);
  const jobs = new TranscriptionJobs(options.store, options.transcriber ?? new PocketsphinxTranscriber(), {
    accountId: options.accountId ?? "000000000000",
    region: options.region ?? "us-east-1",
    quotas,
    faults,
    ...(options.jobRunTime ? { runTime: options.jobRunTime } : {}),
    ...(options.onJobStateChange ? { onJobStateChange: options.onJobStateChange } : {}),
    ...(options.languageCodes ? { languageCodes: options.languageCodes } : {}),
    ...(options.identifyLanguage ? { identifyLanguage: options.identifyLanguage } : {}),
  });
  const rates: Record<string, OperationRate> = {
    StartTranscriptionJob: new OperationRate(
      "startTranscriptionJobPerSecond",
      quotas.startTranscriptionJobPerSecond,
    ),
    GetTranscriptionJob: new OperationRate(
      "getTranscriptionJobPerSecond",
      quotas.getTranscriptionJobPerSecond,
    ),
  };
  const requests: Record<string, number> = {};
  const server = createServer((req, res) => {
    readJsonRequest(req, "Transcribe")
      .then(({ operation, body }) => {
        requests[operation] = (requests[operation] ?? 0) + 1;
        if (rates[operation]?.admit() === false) {
          throw new ServiceError(400, "LimitExceededException", "Rate exceeded");
        }
        if (operation === "StartTranscriptionJob") {
          if (faults.refuseStarts !== undefined)
            throw new ServiceError(400, "BadRequestException", faults.refuseStarts);
          const job = jobs.start(body);
          if ((faults.loseStartAnswers ?? 0) > 0) {
            faults.loseStartAnswers = (faults.loseStartAnswers ?? 0) - 1;
            throw new ServiceError(500, "InternalFailureException", "An internal error occurred.");
          }
          return { TranscriptionJob: job };
        }
        if (operation === "GetTranscriptionJob") {
          if ((faults.throttleGets ?? 0) > 0) {
            faults.throttleGets = (faults.throttleGets ?? 0) - 1;
            throw new ServiceError(400, "LimitExceededException", "Rate exceeded");
          }
          return { TranscriptionJob: jobs.get(body.TranscriptionJobName) };
        }
        if (operation === "DeleteTranscriptionJob") {
          jobs.delete(body.TranscriptionJobName);
          return {};
        }
        throw new ServiceError(
          400,
          "UnknownOperationException",
          "this stand-in serves batch transcription jobs only",
        );
      })
      .then(
        (value) => answer(res, 200, value),
        (error: unknown) =>
          error instanceof ServiceError
            ? answer(res, error.status, { __type: error.type, Message: error.message })
            : answer(res, 500, { __type: "InternalFailureException", Message: "Internal failure" }),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    settled: () => jobs.settled(),
    requests: () => ({ ...requests }),
    jobNames: () => jobs.names(),
    quotaUse: () => [...jobs.quotaUse(), ...Object.values(rates).map((rate) => rate.use())],
    httpServer: server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
