import { stat } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { DuplicateDelivery, Gauge, type JobReport, mapLimit } from "@voxtrail/core";
import { createStageHandlers } from "@voxtrail/functions";
import { keys, type StageFunction, transcriptionModeOf, VOICEMAIL_WORKFLOW } from "@voxtrail/workflow";
import { objectCreatedEvent } from "./events/object-created-event";
import type { InputFile } from "./input-files";
import type { JobResult } from "./job-result";
import type { StateTransition } from "./state-machine/local-state-machine";
import { InputNameNotUtf8, InputNotRegularFile, uploadFailure } from "./upload-failure";
import { uploadOnce } from "./upload-once";
import { WorkflowRuntime, type WorkflowRuntimeOptions } from "./workflow-runtime";

/** Options of the local runtime. */
export type LocalRuntimeOptions = Omit<WorkflowRuntimeOptions, "endpoint">;

/** Progress of one job, for a progress display. */
export type JobProgress =
  | { type: "uploaded"; file: InputFile; key: string }
  | { type: "waiting"; file: InputFile; jobId: string; run: number }
  | { type: "stage"; file: InputFile; transition: StateTransition }
  | { type: "finished"; result: JobResult };

/**
 * The embedded runtime of the voicemail workflow (a `WorkflowRuntime`): each file is put under
 * `incoming/voicemail/` in a directory store, turned into the S3 "Object Created" event
 * EventBridge would deliver, matched against the rule, and run through the ASL with
 * aws-local-stepfunctions. Every stage attempt records how many jobs were in flight when it started.
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
    private readonly runtime: WorkflowRuntime<StageFunction, typeof JobReport>,
    private readonly jobsInFlight: Gauge,
    private readonly interrupt: AbortSignal | undefined,
  ) {}

  /** Starts the local Sonic-compatible endpoint (when synthesis is local) and builds the state machine. */
  static async start(options: LocalRuntimeOptions): Promise<LocalRuntime> {
    const jobsInFlight = new Gauge();
    const runtime = await WorkflowRuntime.start(
      {
        workflow: VOICEMAIL_WORKFLOW,
        handlers: (deps) => createStageHandlers({ ...deps, jobsInFlight: () => jobsInFlight.value }),
        definition: (functionArns, providers) =>
          VOICEMAIL_WORKFLOW.definition(functionArns, transcriptionModeOf(providers)),
      },
      options,
    );
    return new LocalRuntime(runtime, jobsInFlight, options.interrupt);
  }

  /** The store the runtime writes to. */
  get store() {
    return this.runtime.store;
  }

  /**
   * Uploads and processes `files`, at most `concurrency` at a time; one job's failure stops no other,
   * and neither does a file that cannot be uploaded (see {@link uploadFailure}): it fails alone,
   * so the run resolves only once every other job has ended. Every file is checked first (a name
   * that is not UTF-8, or that the store refuses as a key), and those that fail are reported
   * before any job starts. Once the runtime's `interrupt` has aborted, no further file is started:
   * the results are then those of the files that were. Results are in the order of `files`.
   */
  async run(
    files: InputFile[],
    options: { concurrency: number; onProgress?: (progress: JobProgress) => void },
  ): Promise<JobResult[]> {
    const refused = new Map<InputFile, JobResult>();
    for (const file of files) {
      const failure = await this.#check(file).then(
        () => undefined,
        (error: unknown) => uploadFailure(file, error),
      );
      if (!failure) continue;
      refused.set(file, failure);
      options.onProgress?.({ type: "finished", result: failure });
    }
    const results = await mapLimit(files, options.concurrency, async (file) => {
      const failure = refused.get(file);
      if (failure) return failure;
      if (this.interrupt?.aborted) return undefined;
      const result = await this.#process(file, options.onProgress).catch((error: unknown) =>
        uploadFailure(file, error),
      );
      options.onProgress?.({ type: "finished", result });
      return result;
    });
    return results.filter((result) => result !== undefined);
  }

  /**
   * Rejects when `file` cannot be uploaded under its name: a name that was not UTF-8 on disk
   * reaches us with U+FFFD in place of its bytes (no path opens it again, no key can name it), a
   * file that is not a regular file (reading a FIFO would block), and a key the store refuses
   * (asking the store to describe it applies its key rules).
   */
  async #check(file: InputFile): Promise<void> {
    if (file.path.includes("\uFFFD")) {
      throw new InputNameNotUtf8(
        "the file's name is not valid UTF-8, so it cannot be read by name or stored under it",
      );
    }
    if (!(await stat(file.path)).isFile()) {
      throw new InputNotRegularFile("not a regular file (a FIFO, socket or device)");
    }
    await this.store.head(keys.incomingVoicemail(file.name));
  }

  /**
   * Delivers an Amazon Transcribe "Transcribe Job State Change" event to the workflows waiting
   * for their jobs, as the stage's rule does (`WorkflowRuntime.deliverTranscriptionEvent`): for a
   * Transcribe endpoint the caller started and gave as a client.
   */
  deliverTranscriptionEvent(event: unknown): void {
    this.runtime.deliverTranscriptionEvent(event);
  }

  /** Stops the local endpoint, if one was started. */
  async close(): Promise<void> {
    await this.runtime.close();
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
   * result.status; // "SUCCEEDED", "FAILED", "NOT_MATCHED" or "DUPLICATE"
   */
  async runEvent(
    event: unknown,
    options: { file?: InputFile; onProgress?: (progress: JobProgress) => void } = {},
  ): Promise<JobResult> {
    const job = this.runtime.jobOf(event);
    const file = options.file ?? { name: nameOf(job.key), path: this.store.uri(job.key) };
    let failedState: string | undefined;
    const { result, output } = await this.runtime.runJob(event, job, {
      onTransition: (transition) => {
        if (transition.type === "failed") failedState = transition.state;
        options.onProgress?.({ type: "stage", file, transition });
      },
      onStart: () => this.jobsInFlight.enter(),
      onEnd: () => this.jobsInFlight.leave(),
    });
    const duplicate = DuplicateDelivery.safeParse(output).data;
    const unrecorded = result.status === "FAILED" && failedState && !result.report;
    if (!duplicate) return { file, ...result, ...(unrecorded ? { failedState } : {}) };
    const { report } = result;
    // The fields in the order `--json` has always printed them.
    return {
      file,
      ...job,
      status: "DUPLICATE",
      duplicate: duplicate.duplicate,
      ...(report ? { report } : {}),
    };
  }

  /**
   * Uploads `file` under `incoming/voicemail/` and runs the event its arrival makes. When another
   * execution is running the job (another `voxtrail run` on the same store and file), it waits for
   * that one, asking again every {@link WAIT_FOR_OTHER_MS}: the answer is then the job as that
   * execution left it (done, or taken over if its process died), or, once `interrupt` aborts, the
   * in-progress duplicate.
   */
  async #process(file: InputFile, onProgress?: (progress: JobProgress) => void): Promise<JobResult> {
    const { store } = this;
    const key = keys.incomingVoicemail(file.name);
    const stored = await uploadOnce(store, key, file.path, contentTypeOf(file.name));
    onProgress?.({ type: "uploaded", file, key });
    const event = objectCreatedEvent(store.bucket, stored, new Date());
    const deliver = () => this.runEvent(event, { file, ...(onProgress ? { onProgress } : {}) });
    let result = await deliver();
    while (result.duplicate?.reason === "in-progress" && !this.interrupt?.aborted) {
      onProgress?.({ type: "waiting", file, jobId: result.jobId, run: result.duplicate.run });
      const waited = await delay(WAIT_FOR_OTHER_MS, undefined, { signal: this.interrupt }).then(
        () => true,
        () => false,
      );
      if (!waited) break;
      result = await deliver();
    }
    return result;
  }
}

/** How often a run asks again about a job another execution is running. */
export const WAIT_FOR_OTHER_MS = 1000;

/** The key's name below `incoming/voicemail/`, or the whole key outside that prefix. */
function nameOf(key: string): string {
  const prefix = VOICEMAIL_WORKFLOW.incomingPrefix;
  return key.startsWith(prefix) ? key.slice(prefix.length) : key;
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
