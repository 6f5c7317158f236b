import { basename } from "node:path";
import { DuplicateDelivery, type PromptsReport } from "@voxtrail/core";
import { type PromptFunction, promptKeys } from "@voxtrail/workflow";
import { objectCreatedEvent } from "./events/object-created-event";
import { localPromptsWorkflow } from "./local-prompts-workflow";
import type { PromptsProgress } from "./prompts-progress";
import { uploadOnce } from "./upload-once";
import { type WorkflowJobResult, WorkflowRuntime, type WorkflowRuntimeOptions } from "./workflow-runtime";

/** Options of the local prompts runtime. */
export interface PromptsRuntimeOptions extends Omit<WorkflowRuntimeOptions, "recordsFile" | "replyFormat"> {
  /** Prompts synthesized at once: the Map's MaxConcurrency (2 by default). */
  concurrency?: number;
}

/** Where a prompts job's progress goes. */
interface ProgressListener {
  onProgress?: (progress: PromptsProgress) => void;
}

/** How a prompts job ended; `error` when it failed as a whole (e.g. an unreadable manifest). */
export interface PromptsJobResult extends Omit<WorkflowJobResult<PromptsReport>, "status"> {
  /**
   * `DUPLICATE`: another execution owns the job (it is running, or its report says every prompt
   * succeeded); this one did nothing. `report` is then the job's report as it stands, if any.
   */
  status: WorkflowJobResult<PromptsReport>["status"] | "DUPLICATE";
  /** Which execution owns the job, and why this delivery was a duplicate. */
  duplicate?: DuplicateDelivery["duplicate"];
}

/**
 * The embedded runtime of the prompts workflow (a `WorkflowRuntime` over `localPromptsWorkflow`):
 * the cloud prompts definition with its Map adapted to run locally, the same handlers, a directory
 * store, and the local Sonic-compatible endpoint. The manifest is put under `incoming/prompts/`
 * (unless an identical one is there already, so a rerun is the same job), turned into the S3
 * event, matched against the rule, and run. PreparePrompts claims the job first: a run of a
 * manifest whose job is running elsewhere (another run, or another `voxtrail prompts` on the same
 * store) or already done ends as `DUPLICATE`, synthesizing nothing.
 *
 * @example
 * const runtime = await PromptsRuntime.start({ storeDir: ".voxtrail", concurrency: 4 });
 * try {
 *   const result = await runtime.run("fixtures/prompts/menu.csv");
 *   console.log(result.report?.totals);
 * } finally {
 *   await runtime.close();
 * }
 */
export class PromptsRuntime {
  private constructor(
    private readonly runtime: WorkflowRuntime<PromptFunction, typeof PromptsReport>,
    /** Where the running job's progress goes. */
    private readonly listener: ProgressListener,
  ) {}

  /** Starts the local endpoint (when synthesis is local) and builds the state machine. */
  static async start(options: PromptsRuntimeOptions): Promise<PromptsRuntime> {
    const listener: ProgressListener = {};
    const local = localPromptsWorkflow(options.concurrency ?? 2, (progress) =>
      listener.onProgress?.(progress),
    );
    return new PromptsRuntime(await WorkflowRuntime.start(local, options), listener);
  }

  /** The store the runtime writes to. */
  get store() {
    return this.runtime.store;
  }

  /** Puts the manifest under `incoming/prompts/` and runs the prompts workflow over it. */
  async run(manifestPath: string, options: ProgressListener = {}): Promise<PromptsJobResult> {
    const key = promptKeys.incomingManifest(basename(manifestPath));
    const stored = await uploadOnce(this.store, key, manifestPath, manifestContentTypeOf(manifestPath));
    return this.runEvent(objectCreatedEvent(this.store.bucket, stored, new Date()), options);
  }

  /**
   * Runs one S3 "Object Created" event, as EventBridge delivers it, through the prompts rule
   * pattern and, when it matches, the state machine: what the deployed rule and Lambdas do with a
   * manifest's arrival, for an event this runtime did not produce (e.g. one an SQS queue received
   * from a real bus). Rejects with `InvalidInput` when `event` is not an S3 "Object Created" event.
   *
   * @example
   * const result = await runtime.runEvent(JSON.parse(message.Body));
   * result.status; // "SUCCEEDED", "FAILED", "NOT_MATCHED" or "DUPLICATE"
   * result.report?.totals; // when the job got as far as its report
   */
  async runEvent(event: unknown, options: ProgressListener = {}): Promise<PromptsJobResult> {
    const job = this.runtime.jobOf(event);
    const { result, output } = await this.runtime.runJob(event, job, {
      onStart: () => {
        this.listener.onProgress = options.onProgress;
      },
      onEnd: () => {
        this.listener.onProgress = undefined;
      },
    });
    const duplicate = DuplicateDelivery.safeParse(output).data;
    if (!duplicate) return result;
    const { report } = result;
    return { ...job, status: "DUPLICATE", duplicate: duplicate.duplicate, ...(report ? { report } : {}) };
  }

  /** Stops the local endpoint, if one was started. */
  async close(): Promise<void> {
    await this.runtime.close();
  }
}

/**
 * The content type a prompts manifest is uploaded with: `text/csv` for a `.csv` name, JSON Lines
 * otherwise.
 *
 * @example
 * manifestContentTypeOf("menu.csv"); // "text/csv"
 */
export function manifestContentTypeOf(path: string): string {
  return path.toLowerCase().endsWith(".csv") ? "text/csv" : "application/x-ndjson";
}
