import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import { pipeline } from "node:stream/promises";
import {
  type BoundaryPolicy,
  Gauge,
  InvalidInput,
  type ObjectStore,
  PromptRow,
  PromptsReport,
  type StoredObject,
} from "@voxtrail/core";
import {
  createPromptHandlers,
  type PreparedPrompts,
  type PromptOutcome,
  type StageHandler,
} from "@voxtrail/functions";
import type { ProviderClients } from "@voxtrail/providers";
import {
  buildPromptsDefinition,
  LOCAL_ITEMS_FIELD,
  localMapDefinition,
  ObjectCreatedEvent,
  PROMPT_FUNCTIONS,
  type PromptFunction,
  type ProviderSelection,
  promptKeys,
  promptsJobIdFor,
  promptsRulePattern,
  sourceIdentityOf,
} from "@voxtrail/workflow";
import { BUNDLED_RECORDS_FILE } from "./bundled-fixtures";
import { matchesPattern } from "./events/event-pattern";
import { objectCreatedEvent } from "./events/object-created-event";
import { ALL_LOCAL, localDependencies } from "./local-dependencies";
import { type SonicEndpoint, type SonicEndpointOptions, startSonicEndpoint } from "./sonic-endpoint/server";
import { LocalStateMachine } from "./state-machine/local-state-machine";
import { RunningExecutions } from "./state-machine/running-executions";

/** The ARNs the local runtime gives the prompts functions (real-looking, in a placeholder account). */
export const LOCAL_PROMPT_FUNCTION_ARNS = Object.fromEntries(
  PROMPT_FUNCTIONS.map((fn) => [fn, `arn:aws:lambda:us-east-1:000000000000:function:voxtrail-local-${fn}`]),
) as Record<PromptFunction, string>;

/** Options of the local prompts runtime. */
export interface PromptsRuntimeOptions {
  /** The directory that stands in for the stage's bucket (default `./.voxtrail`); unused with `store`. */
  storeDir?: string;
  /** The store to run against (e.g. an `S3Store` on a bucket) instead of a directory store. */
  store?: ObjectStore;
  /** Prompts synthesized at once: the Map's MaxConcurrency (2 by default). */
  concurrency?: number;
  /** Which synthesizer to use; the local Sonic-compatible endpoint (flite) by default. */
  providers?: ProviderSelection;
  /** SDK clients for the cloud providers instead of ones from the standard AWS configuration. */
  providerClients?: ProviderClients;
  /** The boundary policy to enforce; the `local` stage's by default. */
  boundaryPolicy?: BoundaryPolicy;
  /** Without `boundaryPolicy`: the stage environment whose policy file to enforce. */
  policyEnvironment?: string;
  /** Wait this long before each retry instead of the definition's backoff (tests). */
  retryIntervalMs?: number;
  /** How to start the local Sonic endpoint (its engine, injected faults) when synthesis is local. */
  endpoint?: Pick<SonicEndpointOptions, "engine" | "faults" | "chunkMs">;
}

/** Progress of a prompts job, for a progress display. */
export type PromptsProgress =
  | { type: "prepared"; jobId: string; rows: number; badRows: number }
  | { type: "prompt"; outcome: PromptOutcome };

/** How a prompts job ended. */
export interface PromptsJobResult {
  key: string;
  jobId: string;
  status: "SUCCEEDED" | "FAILED" | "NOT_MATCHED";
  /** The execution's error and cause, when it failed as a whole (e.g. an unreadable manifest). */
  error?: { error: string; cause: string };
  report?: PromptsReport;
}

/**
 * The embedded prompts runtime, built like `LocalRuntime`: the cloud prompts definition (adapted by
 * `localMapDefinition`, its one difference: the Map gets the prepared rows in its input instead
 * of reading rows.jsonl from S3), the same handlers through `LocalStateMachine`, a directory store,
 * and the local Sonic-compatible endpoint. The manifest is put under `incoming/prompts/` (unless an
 * identical one is there already, so a rerun is the same job), turned into the S3 event, matched
 * against the rule, and run.
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
  #onProgress: ((progress: PromptsProgress) => void) | undefined;

  private constructor(
    private readonly deps: Awaited<ReturnType<typeof localDependencies>>,
    private readonly endpoint: SonicEndpoint | undefined,
    private readonly options: PromptsRuntimeOptions,
    private machine: LocalStateMachine | undefined,
  ) {}

  /** Starts the local endpoint (when synthesis is local) and builds the state machine. */
  static async start(options: PromptsRuntimeOptions): Promise<PromptsRuntime> {
    const providers = options.providers ?? ALL_LOCAL;
    const endpoint =
      providers.synthesizer === "local" ? await startSonicEndpoint(options.endpoint) : undefined;
    try {
      const deps = await localDependencies({
        ...(options.store ? { store: options.store } : { storeDir: options.storeDir ?? ".voxtrail" }),
        recordsFile: BUNDLED_RECORDS_FILE,
        providers,
        // Prompt jobs claim nothing; the table is what the stage dependencies require.
        executions: new RunningExecutions(),
        ...(endpoint ? { endpoint } : {}),
        ...(options.providerClients ? { providerClients: options.providerClients } : {}),
        ...(options.boundaryPolicy ? { boundaryPolicy: options.boundaryPolicy } : {}),
        ...(options.policyEnvironment ? { policyEnvironment: options.policyEnvironment } : {}),
      });
      const runtime = new PromptsRuntime(deps, endpoint, options, undefined);
      runtime.machine = runtime.#buildMachine();
      return runtime;
    } catch (error) {
      await endpoint?.close();
      throw error;
    }
  }

  /** The store the runtime writes to. */
  get store() {
    return this.deps.store;
  }

  /** Puts the manifest under `incoming/prompts/` and runs the prompts workflow over it. */
  async run(
    manifestPath: string,
    options: { onProgress?: (progress: PromptsProgress) => void } = {},
  ): Promise<PromptsJobResult> {
    const { store } = this.deps;
    const key = promptKeys.incomingManifest(basename(manifestPath));
    const stored = await this.#upload(manifestPath, key);
    return this.runEvent(objectCreatedEvent(store.bucket, stored, new Date()), options);
  }

  /**
   * Runs one S3 "Object Created" event, as EventBridge delivers it, through the prompts rule
   * pattern and, when it matches, the state machine: what the deployed rule and Lambdas do with a
   * manifest's arrival, for an event this runtime did not produce (e.g. one an SQS queue received
   * from a real bus). Rejects with `InvalidInput` when `event` is not an S3 "Object Created" event.
   *
   * @example
   * const result = await runtime.runEvent(JSON.parse(message.Body));
   * result.report?.totals; // when the job got as far as its report
   */
  async runEvent(
    event: unknown,
    options: { onProgress?: (progress: PromptsProgress) => void } = {},
  ): Promise<PromptsJobResult> {
    const parsed = ObjectCreatedEvent.safeParse(event);
    if (!parsed.success) throw new InvalidInput("the event is not an S3 Object Created event");
    const identity = sourceIdentityOf(parsed.data);
    const { key } = identity;
    const jobId = promptsJobIdFor(identity);
    if (!matchesPattern(event, promptsRulePattern(this.deps.store.bucket))) {
      return { key, jobId, status: "NOT_MATCHED" };
    }
    this.#onProgress = options.onProgress;
    try {
      const execution = await (this.machine as LocalStateMachine).start(event, {
        ...(this.options.retryIntervalMs === undefined
          ? {}
          : { retryIntervalMs: this.options.retryIntervalMs }),
      });
      const report = await this.#readReport(jobId);
      return {
        key,
        jobId,
        status: execution.status,
        ...(execution.status === "FAILED"
          ? { error: { error: execution.error, cause: execution.cause } }
          : {}),
        ...(report ? { report } : {}),
      };
    } finally {
      this.#onProgress = undefined;
    }
  }

  /** Stops the local endpoint, if one was started. */
  async close(): Promise<void> {
    await this.endpoint?.close();
  }

  #buildMachine(): LocalStateMachine {
    const inFlight = new Gauge();
    const handlers = createPromptHandlers({ ...this.deps, jobsInFlight: () => inFlight.value });
    const local: Record<PromptFunction, StageHandler<unknown>> = {
      ...handlers,
      // The one step the cloud does in the Map's ItemReader: hand the prepared rows to the Map.
      preparePrompts: async (event, context) => {
        const prepared = (await handlers.preparePrompts(event, context)) as PreparedPrompts;
        this.#onProgress?.({
          type: "prepared",
          jobId: prepared.jobId,
          rows: prepared.rowCount,
          badRows: prepared.badRowCount,
        });
        return { ...prepared, [LOCAL_ITEMS_FIELD]: await this.#readRows(prepared.rows.key) };
      },
      synthesizePrompt: this.#reporting(handlers.synthesizePrompt, inFlight),
      recordPromptFailure: this.#reporting(handlers.recordPromptFailure),
    };
    const definition = localMapDefinition(
      buildPromptsDefinition({
        functionArns: LOCAL_PROMPT_FUNCTION_ARNS,
        maxConcurrency: this.options.concurrency ?? 2,
      }),
    );
    const handlersByArn = Object.fromEntries(
      PROMPT_FUNCTIONS.map((fn) => [LOCAL_PROMPT_FUNCTION_ARNS[fn], local[fn]]),
    );
    return new LocalStateMachine("voxtrail-prompts", definition, handlersByArn);
  }

  /** A prompt handler that reports each outcome (and counts the prompts in flight). */
  #reporting(handler: StageHandler<unknown>, inFlight?: Gauge): StageHandler<unknown> {
    return async (event, context) => {
      inFlight?.enter();
      try {
        const outcome = (await handler(event, context)) as PromptOutcome;
        this.#onProgress?.({ type: "prompt", outcome });
        return outcome;
      } finally {
        inFlight?.leave();
      }
    };
  }

  /** rows.jsonl, parsed as the Distributed Map's ItemReader (InputType JSONL) would. */
  async #readRows(key: string): Promise<PromptRow[]> {
    const text = (await this.deps.store.getBytes(key)).toString("utf8");
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => PromptRow.parse(JSON.parse(line)));
  }

  /** Puts the manifest, unless the store holds exactly these bytes under `key` already. */
  async #upload(path: string, key: string): Promise<StoredObject> {
    const hash = createHash("sha256");
    await pipeline(createReadStream(path), hash);
    const existing = await this.deps.store.head(key);
    if (existing?.sha256 === hash.digest("hex")) return existing;
    return this.deps.store.put(key, createReadStream(path), { contentType: manifestContentTypeOf(path) });
  }

  async #readReport(jobId: string): Promise<PromptsReport | undefined> {
    const key = promptKeys.report(jobId);
    if (!(await this.deps.store.head(key))) return undefined;
    return PromptsReport.parse(JSON.parse((await this.deps.store.getBytes(key)).toString("utf8")));
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
