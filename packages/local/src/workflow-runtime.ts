import {
  type AudioFormat,
  type BoundaryPolicy,
  InvalidInput,
  type ObjectStore,
  type RedactionSettings,
  readJson,
  type TranscriptionService,
} from "@voxtrail/core";
import type { StageDependencies, StageHandler } from "@voxtrail/functions";
import { DEFAULT_TRANSCRIBE_JOB_PREFIX, type ProviderClients } from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import {
  type AslDefinition,
  type EventPattern,
  functionTimeoutSeconds,
  type JobWorkflow,
  ObjectCreatedEvent,
  type ProviderSelection,
  STAGE_TIMEOUT_SECONDS,
  sourceIdentityOf,
  transcriptionEndedInput,
  transcriptionEndedPattern,
} from "@voxtrail/workflow";
import type * as z from "zod/mini";
import { BUNDLED_RECORDS_FILE } from "./bundled-fixtures";
import { matchesPattern } from "./events/event-pattern";
import { ALL_LOCAL, type LocalDependencyOptions, localDependencies } from "./local-dependencies";
import { localFunctionArns } from "./local-functions";
import { type SonicEndpoint, type SonicEndpointOptions, startSonicEndpoint } from "./sonic-endpoint/server";
import {
  invokeLikeLambda,
  LocalStateMachine,
  type StateTransition,
} from "./state-machine/local-state-machine";
import { RunningExecutions } from "./state-machine/running-executions";
import { TaskTokens } from "./state-machine/task-tokens";
import { type LocalTranscription, localTranscription } from "./transcribe-endpoint/local-transcription";

/** Options of a local workflow runtime. */
export interface WorkflowRuntimeOptions {
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
  /** The stage's redaction of callers' data (docs/redaction.md); off by default. */
  redaction?: RedactionSettings;
  /**
   * Which provider each stage uses; every stage on its embedded engine by default. The local
   * Sonic-compatible endpoint (flite) is started only when the synthesizer is `local` and
   * `engines` has none.
   */
  providers?: ProviderSelection;
  /** Engines to use instead of the selection's, e.g. fast stubs in property tests. */
  engines?: LocalDependencyOptions["engines"];
  /** SDK clients for the cloud providers instead of ones from the standard AWS configuration. */
  providerClients?: ProviderClients;
  /** The reply audio's format; 16 kHz mono 16-bit PCM by default. */
  replyFormat?: AudioFormat;
  /** How to start the local Sonic endpoint (its engine, injected faults) when synthesis is local. */
  endpoint?: Pick<SonicEndpointOptions, "engine" | "spanishEngine" | "faults" | "chunkMs">;
  /**
   * The Transcribe service to use instead of the local one (a test's, over a stand-in it started,
   * labelled as what is behind it).
   */
  transcriptionService?: TranscriptionService;
  /** The languages calls may be in (`LocalDependencyOptions.languages`); `VOXTRAIL_LANGUAGES` by default. */
  languages?: readonly string[];
  /**
   * Milliseconds one wait for a transcription job's event lasts before the workflow looks at the
   * job itself, instead of the definition's `TRANSCRIPTION_WAIT_SECONDS`;
   * {@link LOCAL_TRANSCRIPTION_WAIT_MS} by default.
   */
  transcriptionWaitMs?: number;
  /**
   * Aborted when the process is interrupted (the CLI's, on SIGINT or SIGTERM): every stage attempt
   * in flight fails at once with `AttemptInterrupted` and is recorded, and no later one begins, so
   * each job ends (failed, without a report: a rerun runs it again) and no new job starts.
   */
  interrupt?: AbortSignal;
}

/**
 * How long one wait for a transcription job's event lasts locally. The local endpoint sends every
 * job's event, so this is only the safety net's period: MAX_TRANSCRIPTION_WAITS waits of a minute
 * give pocketsphinx ten minutes for a voicemail on a busy machine.
 */
export const LOCAL_TRANSCRIPTION_WAIT_MS = 60_000;

/**
 * A workflow as the local runtime runs it: its descriptor, its handlers and the definition to run.
 *
 * @example
 * const voicemail: LocalWorkflow<StageFunction, typeof JobReport> = {
 *   workflow: VOICEMAIL_WORKFLOW,
 *   handlers: (deps) => createStageHandlers(deps),
 *   definition: (functionArns) => VOICEMAIL_WORKFLOW.definition(functionArns),
 * };
 */
export interface LocalWorkflow<F extends string, R extends z.ZodMiniType> {
  /** What the workflow is: its functions, rule pattern, job ids and report. */
  workflow: JobWorkflow<F, R>;
  /** Each function's handler over the runtime's dependencies. */
  handlers(deps: StageDependencies): Record<F, StageHandler<unknown>>;
  /** The definition to run, its Task states invoking `functionArns`, for the providers chosen. */
  definition(functionArns: Record<F, string>, providers: ProviderSelection): AslDefinition;
}

/**
 * The job an S3 "Object Created" event stands for.
 *
 * @example
 * const job: WorkflowJob = { key: "incoming/voicemail/call.wav", jobId: "3f2a..." };
 */
export interface WorkflowJob {
  /** The key of the object whose arrival the event reports. */
  key: string;
  /** The job the workflow maps that object to. */
  jobId: string;
}

/**
 * How a job ended.
 *
 * @example
 * const result: WorkflowJobResult<JobReport> = { key, jobId, status: "NOT_MATCHED" };
 */
export interface WorkflowJobResult<Report> extends WorkflowJob {
  status: "SUCCEEDED" | "FAILED" | "NOT_MATCHED";
  /** The Fail state's error (`IngestFailed`, ...) and cause (`InvalidAudio: ...`), when failed. */
  error?: { error: string; cause: string };
  /** The job's report, when the job got as far as writing it. */
  report?: Report;
}

/**
 * A job's result and, when its execution succeeded, the execution's output.
 *
 * @example
 * const { result, output } = await runtime.runJob(event, runtime.jobOf(event));
 */
export interface WorkflowRun<Report> {
  result: WorkflowJobResult<Report>;
  /** The execution's output; only when it succeeded. */
  output?: unknown;
}

/**
 * What the caller hears of a matched job while it runs.
 *
 * @example
 * const gauge = new Gauge();
 * const hooks: JobHooks = { onStart: () => gauge.enter(), onEnd: () => gauge.leave() };
 */
export interface JobHooks {
  /** Called for every state transition of the job's execution. */
  onTransition?: (transition: StateTransition) => void;
  /** Called just before the execution starts. */
  onStart?: () => void;
  /** Called once the execution has ended and its report is read (or reading it failed). */
  onEnd?: () => void;
}

/**
 * The embedded runtime of one workflow: the workflow's definition, handlers and rule pattern as in
 * the cloud, on one machine. An S3 "Object Created" event, as EventBridge delivers it, is matched
 * against the rule pattern and, when it matches, run through the ASL with aws-local-stepfunctions;
 * the job's report is read from the store afterwards. The local Sonic-compatible endpoint runs
 * while the runtime does, when synthesis is local.
 *
 * @example
 * const runtime = await WorkflowRuntime.start(voicemail, { storeDir: ".voxtrail" });
 * try {
 *   const { result } = await runtime.runJob(event, runtime.jobOf(event));
 * } finally {
 *   await runtime.close();
 * }
 */
export class WorkflowRuntime<F extends string, R extends z.ZodMiniType> {
  private constructor(
    private readonly workflow: JobWorkflow<F, R>,
    private readonly deps: StageDependencies,
    private readonly machine: LocalStateMachine,
    private readonly endpoint: SonicEndpoint | undefined,
    private readonly transcription: LocalTranscription,
    private readonly timing: { retryIntervalMs: number | undefined; callbackWaitMs: number },
    /** The rule on Transcribe's job events and the function it targets, when jobs are waited for. */
    private readonly transcriptionRule: { pattern: EventPattern; target: StageHandler<unknown> } | undefined,
  ) {}

  /**
   * Starts the local Sonic-compatible endpoint (when synthesis is local) and the local Transcribe
   * endpoint (when the transcriber is `amazon-transcribe` and no Transcribe client is given), and
   * builds the state machine.
   */
  static async start<F extends string, R extends z.ZodMiniType>(
    local: LocalWorkflow<F, R>,
    options: WorkflowRuntimeOptions,
  ): Promise<WorkflowRuntime<F, R>> {
    const providers = options.providers ?? ALL_LOCAL;
    const store = options.store ?? new DirectoryStore({ root: options.storeDir ?? ".voxtrail" });
    const endpoint =
      providers.synthesizer === "local" && !options.engines?.synthesizer
        ? await startSonicEndpoint(options.endpoint)
        : undefined;
    let transcription: LocalTranscription | undefined;
    try {
      // The rule on Transcribe's job events targets the Transcribe function, once it exists.
      let transcriptionEnded: (event: unknown) => void = () => {};
      transcription = await localTranscription(store, providers, options.providerClients, (event) =>
        transcriptionEnded(event),
      );
      const running = new RunningExecutions();
      const tokens = new TaskTokens();
      const deps = await localDependencies({
        executions: running,
        workflowCallback: tokens,
        store,
        recordsFile: options.recordsFile ?? BUNDLED_RECORDS_FILE,
        providers,
        ...(options.engines ? { engines: options.engines } : {}),
        ...(endpoint ? { endpoint } : {}),
        providerClients: {
          ...options.providerClients,
          ...(transcription.client ? { transcribe: transcription.client } : {}),
        },
        ...(options.transcriptionService
          ? { transcriptionService: options.transcriptionService }
          : transcription.service
            ? { transcriptionService: transcription.service }
            : {}),
        ...(options.boundaryPolicy ? { boundaryPolicy: options.boundaryPolicy } : {}),
        ...(options.policyEnvironment ? { policyEnvironment: options.policyEnvironment } : {}),
        ...(options.replyFormat ? { replyFormat: options.replyFormat } : {}),
        ...(options.interrupt ? { interrupt: options.interrupt } : {}),
        ...(options.languages ? { languages: options.languages } : {}),
        ...(options.redaction ? { redaction: options.redaction } : {}),
      });
      const { workflow } = local;
      const functionArns = localFunctionArns(workflow.functions);
      const handlers = local.handlers(deps);
      const handlersByArn = Object.fromEntries(
        workflow.functions.map((fn) => [functionArns[fn], handlers[fn]]),
      );
      const definition = local.definition(functionArns, providers);
      const machine = new LocalStateMachine(
        `voxtrail-${workflow.name}`,
        definition,
        handlersByArn,
        running,
        tokens,
      );
      const transcribe = (handlers as Record<string, StageHandler<unknown> | undefined>).transcribe;
      const transcriptionRule =
        transcribe && deps.transcriptionService
          ? {
              pattern: transcriptionEndedPattern(
                providers.transcribeJobPrefix ?? DEFAULT_TRANSCRIBE_JOB_PREFIX,
              ),
              target: transcribe,
            }
          : undefined;
      const runtime = new WorkflowRuntime(
        workflow,
        deps,
        machine,
        endpoint,
        transcription,
        {
          retryIntervalMs: options.retryIntervalMs,
          callbackWaitMs: options.transcriptionWaitMs ?? LOCAL_TRANSCRIPTION_WAIT_MS,
        },
        transcriptionRule,
      );
      transcriptionEnded = (event) => runtime.deliverTranscriptionEvent(event);
      return runtime;
    } catch (error) {
      await endpoint?.close();
      await transcription?.close();
      throw error;
    }
  }

  /** The store the runtime writes to. */
  get store(): ObjectStore {
    return this.deps.store;
  }

  /** The job `event` stands for. Throws `InvalidInput` when it is not an S3 "Object Created" event. */
  jobOf(event: unknown): WorkflowJob {
    const parsed = ObjectCreatedEvent.safeParse(event);
    if (!parsed.success) throw new InvalidInput("the event is not an S3 Object Created event");
    const identity = sourceIdentityOf(parsed.data);
    return { key: identity.key, jobId: this.workflow.jobIdFor(identity) };
  }

  /**
   * Runs `event`, the event of `job`, as the deployed rule and Lambdas do: `NOT_MATCHED` unless it
   * matches the workflow's rule pattern, otherwise the state machine's execution and the report
   * it left.
   */
  async runJob(
    event: unknown,
    { key, jobId }: WorkflowJob,
    hooks: JobHooks = {},
  ): Promise<WorkflowRun<z.infer<R>>> {
    if (!matchesPattern(event, this.workflow.rulePattern(this.store.bucket))) {
      return { result: { key, jobId, status: "NOT_MATCHED" } };
    }
    hooks.onStart?.();
    try {
      const execution = await this.machine.start(event, {
        onTransition: hooks.onTransition,
        ...this.timing,
      });
      // Only a stop aborts an execution, and nothing here stops one.
      if (execution.status === "ABORTED") throw new Error(`${execution.executionArn} was aborted`);
      const report = await this.#readReport(jobId);
      const result: WorkflowJobResult<z.infer<R>> = {
        key,
        jobId,
        status: execution.status,
        ...(execution.status === "FAILED"
          ? { error: { error: execution.error, cause: execution.cause } }
          : {}),
        ...(report ? { report } : {}),
      };
      return execution.status === "SUCCEEDED" ? { result, output: execution.output } : { result };
    } finally {
      hooks.onEnd?.();
    }
  }

  /**
   * Delivers an Amazon Transcribe "Transcribe Job State Change" event as the stage's rule does:
   * when it matches the rule's pattern (a job of this selection's prefix that ended), the
   * Transcribe function's resume step gets the rule's transformed input, asynchronously, as
   * EventBridge invokes a Lambda target (a failure is logged, by name, and not the sender's).
   * The local endpoint this runtime started delivers its own; one a caller started, the caller.
   */
  deliverTranscriptionEvent(event: unknown): void {
    const rule = this.transcriptionRule;
    if (!rule || !matchesPattern(event, rule.pattern)) return;
    invokeLikeLambda(
      rule.target,
      localFunctionArns(["transcribe"]).transcribe,
      functionTimeoutSeconds(STAGE_TIMEOUT_SECONDS.Transcribe),
      transcriptionEndedInput(event),
    ).catch((error: Error) =>
      this.deps.logger.error("the resume step failed on a transcription job event", { error: error.name }),
    );
  }

  /** Stops the local endpoints, if any were started. */
  async close(): Promise<void> {
    await this.endpoint?.close();
    await this.transcription.close();
  }

  /** The job's report, or `undefined` before the job has written it. */
  async #readReport(jobId: string): Promise<z.infer<R> | undefined> {
    const key = this.workflow.reportKey(jobId);
    if (!(await this.store.head(key))) return undefined;
    return readJson(this.store, key, this.workflow.report);
  }
}
