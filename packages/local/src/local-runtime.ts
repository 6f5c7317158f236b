import { createReadStream } from "node:fs";
import { type AudioFormat, type BoundaryPolicy, Gauge, JobReport } from "@voxtrail/core";
import { createStageHandlers, type StageDependencies } from "@voxtrail/functions";
import type { ProviderClients, ProviderSelection } from "@voxtrail/providers";
import {
  buildVoicemailDefinition,
  jobIdFor,
  keys,
  STAGE_FUNCTIONS,
  voicemailRulePattern,
} from "@voxtrail/workflow";
import { BUNDLED_RECORDS_FILE } from "./bundled-fixtures";
import { matchesPattern } from "./events/event-pattern";
import { objectCreatedEvent } from "./events/object-created-event";
import type { InputFile } from "./input-files";
import { ALL_LOCAL, localDependencies } from "./local-dependencies";
import { LOCAL_FUNCTION_ARNS } from "./local-functions";
import { type SonicEndpoint, startSonicEndpoint } from "./sonic-endpoint/server";
import { LocalStateMachine, type StateTransition } from "./state-machine/local-state-machine";

/** Options of the local runtime. */
export interface LocalRuntimeOptions {
  /** The directory that stands in for the stage's bucket (default `./.voxtrail`). */
  storeDir: string;
  /** The JSON Lines business records (default: the bundled fixtures). */
  recordsFile?: string;
  /** Wait this long before each retry instead of the definition's backoff (tests). */
  retryIntervalMs?: number;
  /** The boundary policy to enforce; the `local` stage's by default. */
  boundaryPolicy?: BoundaryPolicy;
  /** Without `boundaryPolicy`: the stage environment whose policy file to enforce (`local` by default). */
  policyEnvironment?: string;
  /**
   * Which provider each stage uses; every stage on its embedded engine by default. The local
   * Sonic-compatible endpoint is started only when the synthesizer is `local`.
   */
  providers?: ProviderSelection;
  /** SDK clients for the cloud providers instead of ones from the standard AWS configuration. */
  providerClients?: ProviderClients;
  /** The reply audio's format; 16 kHz mono 16-bit PCM by default. */
  replyFormat?: AudioFormat;
}

/** Progress of one job, for a progress display. */
export type JobProgress =
  | { type: "uploaded"; file: InputFile; key: string }
  | { type: "stage"; file: InputFile; transition: StateTransition }
  | { type: "finished"; result: JobResult };

/** How one uploaded file's job ended. */
export interface JobResult {
  file: InputFile;
  key: string;
  jobId: string;
  status: "SUCCEEDED" | "FAILED" | "NOT_MATCHED";
  /** The Fail state's error (`IngestFailed`, ...) and cause (`InvalidAudio: ...`), when failed. */
  error?: { error: string; cause: string };
  report?: JobReport;
}

/**
 * The embedded runtime: the same workflow definition, handlers and rule pattern as the cloud, on
 * one machine. Each file is put under `incoming/voicemail/` in a directory store, turned into the
 * S3 "Object Created" event EventBridge would deliver, matched against the rule, and run through
 * the ASL with aws-local-stepfunctions.
 *
 * @example
 * const runtime = await LocalRuntime.start({ storeDir: ".voxtrail" });
 * try {
 *   const results = await runtime.run(await collectInputFiles(["fixtures/voicemail"]), { concurrency: 2 });
 * } finally {
 *   await runtime.close();
 * }
 */
export class LocalRuntime {
  private constructor(
    private readonly deps: StageDependencies,
    private readonly machine: LocalStateMachine,
    private readonly endpoint: SonicEndpoint | undefined,
    private readonly options: LocalRuntimeOptions,
    private readonly jobsInFlight: Gauge,
  ) {}

  /** Starts the local Sonic-compatible endpoint (when synthesis is local) and builds the state machine. */
  static async start(options: LocalRuntimeOptions): Promise<LocalRuntime> {
    const providers = options.providers ?? ALL_LOCAL;
    const endpoint = providers.synthesizer === "local" ? await startSonicEndpoint() : undefined;
    try {
      const deps = await localDependencies({
        storeDir: options.storeDir,
        recordsFile: options.recordsFile ?? BUNDLED_RECORDS_FILE,
        providers,
        ...(endpoint ? { endpoint } : {}),
        ...(options.providerClients ? { providerClients: options.providerClients } : {}),
        ...(options.boundaryPolicy ? { boundaryPolicy: options.boundaryPolicy } : {}),
        ...(options.policyEnvironment ? { policyEnvironment: options.policyEnvironment } : {}),
        ...(options.replyFormat ? { replyFormat: options.replyFormat } : {}),
      });
      // Every stage attempt records how many jobs were in flight when it started.
      const jobsInFlight = new Gauge();
      const handlers = createStageHandlers({ ...deps, jobsInFlight: () => jobsInFlight.value });
      const handlersByArn = Object.fromEntries(
        STAGE_FUNCTIONS.map((fn) => [LOCAL_FUNCTION_ARNS[fn], handlers[fn]]),
      );
      const definition = buildVoicemailDefinition({ functionArns: LOCAL_FUNCTION_ARNS });
      const machine = new LocalStateMachine("voxtrail-voicemail", definition, handlersByArn);
      return new LocalRuntime(deps, machine, endpoint, options, jobsInFlight);
    } catch (error) {
      await endpoint?.close();
      throw error;
    }
  }

  /** The store the runtime writes to. */
  get store() {
    return this.deps.store;
  }

  /** Uploads and processes `files`, at most `concurrency` at a time; one job's failure stops no other. */
  async run(
    files: InputFile[],
    options: { concurrency: number; onProgress?: (progress: JobProgress) => void },
  ): Promise<JobResult[]> {
    const results: JobResult[] = new Array(files.length);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const index = next++;
        const file = files[index] as InputFile;
        this.jobsInFlight.enter();
        try {
          results[index] = await this.#process(file, options.onProgress);
        } finally {
          this.jobsInFlight.leave();
        }
        options.onProgress?.({ type: "finished", result: results[index] });
      }
    };
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.concurrency, files.length)) }, worker),
    );
    return results;
  }

  /** Stops the local endpoint, if one was started. */
  async close(): Promise<void> {
    await this.endpoint?.close();
  }

  async #process(file: InputFile, onProgress?: (progress: JobProgress) => void): Promise<JobResult> {
    const { store } = this.deps;
    const key = keys.incomingVoicemail(file.name);
    const stored = await store.put(key, createReadStream(file.path), {
      contentType: contentTypeOf(file.name),
    });
    onProgress?.({ type: "uploaded", file, key });
    const event = objectCreatedEvent(store.bucket, stored, new Date());
    const jobId = jobIdFor({
      bucket: store.bucket,
      key,
      versionId: event.detail.object["version-id"],
      etag: event.detail.object.etag,
    });
    if (!matchesPattern(event, voicemailRulePattern(store.bucket))) {
      return { file, key, jobId, status: "NOT_MATCHED" };
    }
    const execution = await this.machine.start(event, {
      onTransition: (transition) => onProgress?.({ type: "stage", file, transition }),
      ...(this.options.retryIntervalMs === undefined
        ? {}
        : { retryIntervalMs: this.options.retryIntervalMs }),
    });
    const report = await this.#readReport(jobId);
    return {
      file,
      key,
      jobId,
      status: execution.status,
      ...(execution.status === "FAILED" ? { error: { error: execution.error, cause: execution.cause } } : {}),
      ...(report ? { report } : {}),
    };
  }

  async #readReport(jobId: string): Promise<JobReport | undefined> {
    const head = await this.deps.store.head(keys.report(jobId));
    if (!head) return undefined;
    return JobReport.parse(JSON.parse((await this.deps.store.getBytes(keys.report(jobId))).toString("utf8")));
  }
}

function contentTypeOf(name: string): string {
  return name.toLowerCase().endsWith(".wav") ? "audio/wav" : "application/octet-stream";
}
