import { createReadStream } from "node:fs";
import {
  type AudioFormat,
  type BoundaryPolicy,
  DuplicateDelivery,
  Gauge,
  InvalidInput,
  JobReport,
  type ObjectStore,
} from "@voxtrail/core";
import { createStageHandlers, type StageDependencies } from "@voxtrail/functions";
import type { ProviderClients } from "@voxtrail/providers";
import {
  buildVoicemailDefinition,
  jobIdFor,
  keys,
  ObjectCreatedEvent,
  type ProviderSelection,
  STAGE_FUNCTIONS,
  sourceIdentityOf,
  VOICEMAIL_INCOMING_PREFIX,
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
import { RunningExecutions } from "./state-machine/running-executions";

/** Options of the local runtime. */
export interface LocalRuntimeOptions {
  /** The directory that stands in for the stage's bucket (default `./.voxtrail`); unused with `store`. */
  storeDir?: string;
  /** The store to run against (e.g. an `S3Store` on a bucket) instead of a directory store. */
  store?: ObjectStore;
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
  /** `DUPLICATE`: another execution owns the job (it is done, or running); this one did nothing. */
  status: "SUCCEEDED" | "FAILED" | "NOT_MATCHED" | "DUPLICATE";
  /** Which execution owns the job, and why this delivery was a duplicate. */
  duplicate?: DuplicateDelivery["duplicate"];
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
      const running = new RunningExecutions();
      const deps = await localDependencies({
        executions: running,
        ...(options.store ? { store: options.store } : { storeDir: options.storeDir ?? ".voxtrail" }),
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
      const machine = new LocalStateMachine("voxtrail-voicemail", definition, handlersByArn, running);
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
        results[index] = await this.#process(files[index] as InputFile, options.onProgress);
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

  /**
   * Runs one S3 "Object Created" event, as EventBridge delivers it, through the workflow's rule
   * pattern and, when it matches, the state machine: what the deployed rule and Lambdas do with an
   * event, for an event this runtime did not produce (e.g. one an SQS queue received from a real
   * bus). `file` names the job in its result; by default the key below `incoming/voicemail/`.
   * Rejects with `InvalidInput` when `event` is not an S3 "Object Created" event.
   *
   * @example
   * const result = await runtime.runEvent(JSON.parse(message.Body));
   * result.status; // "SUCCEEDED", "FAILED" or "NOT_MATCHED"
   */
  async runEvent(
    event: unknown,
    options: { file?: InputFile; onProgress?: (progress: JobProgress) => void } = {},
  ): Promise<JobResult> {
    const parsed = ObjectCreatedEvent.safeParse(event);
    if (!parsed.success) throw new InvalidInput("the event is not an S3 Object Created event");
    const identity = sourceIdentityOf(parsed.data);
    const { key } = identity;
    const jobId = jobIdFor(identity);
    const file = options.file ?? { name: nameOf(key), path: this.deps.store.uri(key) };
    if (!matchesPattern(event, voicemailRulePattern(this.deps.store.bucket))) {
      return { file, key, jobId, status: "NOT_MATCHED" };
    }
    this.jobsInFlight.enter();
    try {
      const execution = await this.machine.start(event, {
        onTransition: (transition) => options.onProgress?.({ type: "stage", file, transition }),
        ...(this.options.retryIntervalMs === undefined
          ? {}
          : { retryIntervalMs: this.options.retryIntervalMs }),
      });
      const report = await this.#readReport(jobId);
      const duplicate =
        execution.status === "SUCCEEDED" ? DuplicateDelivery.safeParse(execution.output).data : undefined;
      return {
        file,
        key,
        jobId,
        status: duplicate ? "DUPLICATE" : execution.status,
        ...(duplicate ? { duplicate: duplicate.duplicate } : {}),
        ...(execution.status === "FAILED"
          ? { error: { error: execution.error, cause: execution.cause } }
          : {}),
        ...(report ? { report } : {}),
      };
    } finally {
      this.jobsInFlight.leave();
    }
  }

  /** Uploads `file` under `incoming/voicemail/` and runs the event its arrival makes. */
  async #process(file: InputFile, onProgress?: (progress: JobProgress) => void): Promise<JobResult> {
    const { store } = this.deps;
    const key = keys.incomingVoicemail(file.name);
    const stored = await store.put(key, createReadStream(file.path), {
      contentType: contentTypeOf(file.name),
    });
    onProgress?.({ type: "uploaded", file, key });
    const event = objectCreatedEvent(store.bucket, stored, new Date());
    return this.runEvent(event, { file, ...(onProgress ? { onProgress } : {}) });
  }

  async #readReport(jobId: string): Promise<JobReport | undefined> {
    const head = await this.deps.store.head(keys.report(jobId));
    if (!head) return undefined;
    return JobReport.parse(JSON.parse((await this.deps.store.getBytes(keys.report(jobId))).toString("utf8")));
  }
}

/** The key's name below `incoming/voicemail/`, or the whole key outside that prefix. */
function nameOf(key: string): string {
  return key.startsWith(VOICEMAIL_INCOMING_PREFIX) ? key.slice(VOICEMAIL_INCOMING_PREFIX.length) : key;
}

/**
 * The content type a voicemail file is uploaded with: `audio/wav` for a `.wav` name.
 *
 * @example
 * contentTypeOf("call.wav"); // "audio/wav"
 */
export function contentTypeOf(name: string): string {
  return name.toLowerCase().endsWith(".wav") ? "audio/wav" : "application/octet-stream";
}
