import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CreateEventBusCommand, EventBridgeClient } from "@aws-sdk/client-eventbridge";
import {
  CreateBucketCommand,
  PutBucketVersioningCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import type { Transcriber } from "@voxtrail/core";
import type { DigestRun, IndexRun, StageHandler } from "@voxtrail/functions";
import {
  BUNDLED_RECORDS_FILE,
  BUNDLED_VOICEMAILS_DIR,
  type ExecutionResult,
  LocalStateMachine,
  matchesPattern,
  objectCreatedEvent,
  type SpeechEngine,
  TaskTokens,
} from "@voxtrail/local";
import {
  BATCH_INCOMING_PREFIX,
  type EventPattern,
  keys,
  PROMPTS_INCOMING_PREFIX,
  transformedInput,
} from "@voxtrail/workflow";
import { AuthorizingProxy, type CallRecord, type Principal } from "./authorizing-proxy";
import { startCartesiaInkStandIn } from "./cartesia-ink-stand-in";
import {
  type DistributedMap,
  distributedMapOf,
  feeding,
  type MapContext,
  type ResultUpload,
  startResults,
  stopMapRun,
  withItems,
} from "./distributed-map";
import { buildHandlerBundles } from "./function-bundle";
import { FunctionHost } from "./function-host";
import { indexedForAthena } from "./index-for-athena";
import { platformCalls } from "./platform-calls";
import { type Decision, PolicyEvaluator } from "./policy-evaluator";
import { createStateMachine, stopSyncChildren, taskHandlers } from "./service-integrations";
import { signedDigest } from "./signed-digest";
import { deployKeys } from "./signing-keys";
import { REJECTED_VOICE_ID, type SonicAsked, startSonicStandIn } from "./sonic-stand-in";
import {
  rehearsesSpanish,
  SPANISH_CALL_LANGUAGE,
  spanishTranscribeSettings,
  spanishVoicemailWav,
  stageLanguages,
} from "./spanish-voicemail";
import { rolesOf, type StagePlan, type StateMachinePlan } from "./stage-plan";
import { RehearsalExecutions, startStepFunctionsStandIn } from "./step-functions-stand-in";
import { startTranscribeStandIn } from "./transcribe-stand-in";

/** The third-party host a Cartesia provider calls, which the rehearsal redirects to its stand-in. */
const CARTESIA_HOST = "api.cartesia.ai";
const SETUP_KEY = "AKREHEARSALSETUP";
/** The voicemail the rehearsal uploads: a damaged order whose record is in the bundled records. */
const VOICEMAIL = "damaged-order.wav";
/**
 * The names the rehearsal uploads its voicemail, prompts manifest and batch manifest under, in
 * each run's folder: a space, `+`, `%` and a non-ASCII letter, all of which S3's events
 * form-encode (docs/architecture.md, "Object keys in S3 events"). The workflows succeed only if
 * every reader agrees on the key: Ingest and PreparePrompts (decoding the event), OpenBatch and
 * the batch's ItemReader, and each batch child's Ingest (the manifest's row, as it is).
 */
export const UPLOAD_NAMES = {
  voicemail: "a b+c%ü.wav",
  prompts: "menu b+c%ü.csv",
  batch: "list b+c%ü.csv",
} as const;
/**
 * Milliseconds a wait for a transcription job's event lasts in the rehearsal before the workflow
 * looks at the job itself, instead of the definition's 30 minutes: the stand-in sends every job's
 * event within seconds, so a wait that runs this long means the event was not delivered.
 */
const CALLBACK_WAIT_MS = 60_000;

/**
 * The workflows a rehearsal can run, in the order it runs them. `spanishVoicemail` runs only on a
 * stage that takes `es-US` calls and transcribes with Amazon Transcribe ({@link rehearsesSpanish}).
 */
export const REHEARSED_WORKFLOWS = [
  "voicemail",
  "spanishVoicemail",
  "lineageIndex",
  "lineageDigest",
  "duplicate",
  "duplicateWhileRunning",
  "invalidAudio",
  "prompts",
  "promptsRerun",
  "promptsStopped",
  "batch",
  "batchStopped",
  "lineageIndexUpdate",
] as const;
export type RehearsedWorkflow = (typeof REHEARSED_WORKFLOWS)[number];

/**
 * What each workflow needs run before it, in the same {@link Rehearsal.run}, to meet its expected
 * outcome on a stage that has run before: `duplicate` delivers the run's voicemail again and
 * `promptsRerun` its manifest; `batch` lists the run's voicemail; the lineage signer and the index
 * compactor need a job they have not seen yet, and the signer an index generation to name (it signs
 * after indexing).
 */
const PREREQUISITES: Record<RehearsedWorkflow, readonly RehearsedWorkflow[]> = {
  voicemail: [],
  spanishVoicemail: [],
  lineageDigest: ["voicemail", "lineageIndex"],
  lineageIndex: ["voicemail"],
  duplicate: ["voicemail"],
  duplicateWhileRunning: [],
  invalidAudio: [],
  prompts: [],
  promptsRerun: ["prompts"],
  promptsStopped: [],
  batch: ["voicemail"],
  batchStopped: [],
  lineageIndexUpdate: ["voicemail"],
};

/**
 * The shortest run that reaches `workflow` on a stage that has run before: its prerequisites, then
 * itself, in {@link REHEARSED_WORKFLOWS} order.
 */
export function runUpTo(workflow: RehearsedWorkflow): RehearsedWorkflow[] {
  return REHEARSED_WORKFLOWS.filter((each) => each === workflow || PREREQUISITES[workflow].includes(each));
}

/**
 * The workflows that are a schedule's run, each with the handler of the function its schedule
 * invokes: the hourly lineage signer, and the lineage index compactor every 15 minutes, run once
 * after the first voicemail and again after the later jobs (its day's files rewritten, the
 * symlinks following them).
 */
const SCHEDULED: Partial<Record<RehearsedWorkflow, string>> = {
  lineageDigest: "packages/functions/src/lambda/sign-lineage.handler",
  lineageIndex: "packages/functions/src/lambda/compact-lineage-index.handler",
  lineageIndexUpdate: "packages/functions/src/lambda/compact-lineage-index.handler",
};

/**
 * The workflows whose execution is stopped (StopExecution) while it runs, each with the function
 * whose invocation holds it there: a prompts job in its Distributed Map, a synthesis under way; a
 * batch in its Map, its `.sync:2` voicemail execution about to ingest. Step Functions then stops
 * what the execution started, as its role (the Map Run's child executions, the `.sync:2`
 * executions) and the ResultWriter discards its upload.
 */
const STOPPED_AT: Partial<Record<RehearsedWorkflow, string>> = {
  promptsStopped: "PromptSynthesizePrompt",
  batchStopped: "StageIngest",
};

/** How one workflow run ended, against what the stage should do. */
export interface RehearsedRun {
  workflow: RehearsedWorkflow;
  stateMachine: string;
  status: ExecutionResult["status"] | "NOT_STARTED";
  error?: string;
  cause?: string;
  /** What happened, as one line (see `describe`). */
  outcome: string;
  /** What the stage must do: e.g. `SUCCEEDED`, or `IngestFailed: InvalidAudio` for a file that is not audio. */
  expected: string;
  ok: boolean;
}

/** One statement of a role's policy, 1-based as IAM's evaluation reports it. */
export interface StatementRef {
  role: string;
  policy: string;
  index: number;
}

/** Everything one rehearsal did. */
export interface RehearsalReport {
  stage: string;
  /** Providers pointed at local stand-ins, each with the boundary it keeps. */
  redirects: string[];
  runs: RehearsedRun[];
  calls: CallRecord[];
  /**
   * Every workflow did what the stage must do, every call was one the rehearsal could map to IAM,
   * none was refused (a refusal the workflow absorbs, a branch taken instead, still fails it), and
   * every role could be assumed by its service alone and let Lambda write its function's logs.
   */
  ok: boolean;
}

/** Options of {@link Rehearsal.start}. */
export interface RehearsalOptions {
  plan: StagePlan;
  /** moto_server's base URL: S3, EventBridge and SSM as the functions call them. */
  motoEndpoint: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /** Output of the functions' execution environments (their logs). */
  onFunctionOutput?: (component: string, line: string) => void;
  /**
   * The recogniser behind the Amazon Transcribe and Cartesia Ink stand-ins; pocketsphinx by
   * default. A run whose subject is the permissions, not what was heard, may give the simulated one.
   */
  transcriber?: Transcriber;
  /**
   * What the Sonic stand-in speaks with; flite by default. A run whose subject is the permissions,
   * not what was said, may give another (flite remembering each sentence's WAV, say): the functions
   * make the same requests, as long as it speaks audibly for as long as the text takes.
   */
  speechEngine?: SpeechEngine;
  /**
   * Milliseconds a Task waits before each retry, instead of its definition's backoff; the
   * definition's by default. A run whose subject is the permissions may shorten it: a retry is
   * authorized as its first attempt was, only later, so its outcome is the same, sooner.
   */
  retryIntervalMs?: number;
}

/**
 * A stage stood up as the stacks describe it, under AWS's rules: every function in its own
 * execution environments with its deployed environment and its role's credentials, every SDK
 * call authorized against the deployed policies by the proxy before moto (or a stand-in) serves
 * it, the state machines the stacks deploy run by the local engine with their service
 * integrations answered as Step Functions would, under the state machine's role, and the rules
 * authorized with their own roles.
 *
 * @example
 * const rehearsal = await Rehearsal.start({ plan, motoEndpoint });
 * try { report = await rehearsal.run(); } finally { await rehearsal.close(); }
 */
export class Rehearsal {
  /** Every call authorized so far, in every run; each report holds its own run's. */
  readonly #calls: CallRecord[] = [];
  readonly redirects: string[] = [];
  readonly #closers: Array<() => Promise<void>> = [];
  readonly #machines = new Map<
    string,
    {
      machine: LocalStateMachine;
      plan: StateMachinePlan;
      context: MapContext;
      map?: DistributedMap;
    }
  >();
  readonly #executions: RehearsalExecutions;
  /** The task tokens the state machines' callback Tasks wait on, resumed through the Step Functions stand-in. */
  readonly #tokens = new TaskTokens();
  /** IAM for the whole stage: every role's deployed policies, and the bucket policy. */
  readonly #evaluator: PolicyEvaluator;
  readonly #hosts = new Map<string, FunctionHost>();
  #beforeInvoke: ((functionArn: string) => Promise<void>) | undefined;
  /** Aborted when the execution being run is stopped: every execution started meanwhile stops with it. */
  #stopping: AbortSignal | undefined;
  /** Each Distributed Map execution's item results, by execution ARN. */
  readonly #items = new Map<string, unknown[]>();
  #setup!: S3Client;
  #motoEndpoint = "";
  #workflow: RehearsedWorkflow | undefined;
  #runs = 0;
  /** What the Sonic stand-in was asked to speak, every run's. */
  #sonicAsked: readonly SonicAsked[] = [];
  /** Whether the stage takes Spanish calls, so the Spanish voicemail runs ({@link rehearsesSpanish}). */
  #spanish = false;
  #retryIntervalMs: number | undefined;

  /** What the Sonic stand-in was asked to speak so far (text and language), for a test's checks. */
  get sonicAsked(): readonly SonicAsked[] {
    return this.#sonicAsked;
  }

  private constructor(
    readonly plan: StagePlan,
    private readonly log: (line: string) => void,
  ) {
    this.#executions = new RehearsalExecutions(plan);
    this.#evaluator = new PolicyEvaluator({
      account: plan.account,
      bucket: plan.bucket,
      bucketPolicy: plan.bucketPolicy,
      keyPolicies: Object.fromEntries(plan.keys.map((key) => [key.arn, key.policy])),
    });
  }

  static async start(options: RehearsalOptions): Promise<Rehearsal> {
    const plan = await deployKeys(options.plan, options.motoEndpoint);
    const rehearsal = new Rehearsal(plan, options.log ?? (() => undefined));
    try {
      await rehearsal.#standUp(options);
    } catch (error) {
      await rehearsal.close();
      throw error;
    }
    return rehearsal;
  }

  async #standUp(options: RehearsalOptions): Promise<void> {
    const { plan } = this;
    const evaluator = this.#evaluator;
    // Built while the rest stands up; every function's environments wait for it.
    const bundles = buildHandlerBundles(plan.functions.map((fn) => fn.handler));
    bundles.catch(() => undefined);
    const sonic = await startSonicStandIn(options.speechEngine);
    this.#closers.push(() => sonic.close());
    this.#sonicAsked = sonic.asked;
    this.#spanish = rehearsesSpanish(plan, transcribesWithAmazonTranscribe(plan));
    const stepFunctions = await startStepFunctionsStandIn(this.#executions, this.#tokens);
    this.#closers.push(() => stepFunctions.close());
    const upstreams: Record<string, string> = {
      s3: options.motoEndpoint,
      events: options.motoEndpoint,
      ssm: options.motoEndpoint,
      kms: options.motoEndpoint,
      states: stepFunctions.url,
      sagemaker: sonic.url,
    };
    // A stage that transcribes with Amazon Transcribe: its Transcribe function starts and looks at
    // jobs through the proxy, which forwards to the stand-in; each job's end is an event for the
    // stage's rules.
    const recognizer = options.transcriber?.processor.provider ?? "pocketsphinx";
    if (transcribesWithAmazonTranscribe(plan)) {
      // A stage taking Spanish calls: the stand-in takes its languages, and answers an es-US job
      // with the Spanish voicemail's words, labelled as supplied (no recogniser here hears Spanish).
      const spanish = this.#spanish ? spanishTranscribeSettings(plan, options.transcriber) : undefined;
      const transcriber = spanish?.transcriber ?? options.transcriber;
      const transcribe = await startTranscribeStandIn({
        motoEndpoint: options.motoEndpoint,
        bucket: plan.bucket,
        region: plan.region,
        account: plan.account,
        ...(transcriber ? { transcriber } : {}),
        ...(spanish ? { languages: spanish.languages } : {}),
        onJobStateChange: (event) => void this.#deliverToFunctions(event),
      });
      this.#closers.push(() => transcribe.close());
      upstreams.transcribe = transcribe.url;
      this.redirects.push(
        `Amazon Transcribe -> ${transcribe.url} (the local Transcribe endpoint: ${recognizer}${spanish ? `, and for ${SPANISH_CALL_LANGUAGE} a transcript the rehearsal supplies` : ""}, not Transcribe; it reads and writes the stage's bucket as the service would), reached through the IAM proxy; boundary stays aws-account (transcribe)`,
      );
    }
    const principals = new Map<string, Principal>();
    const keyOf = new Map<string, string>();
    [
      ...plan.functions.map((f) => ({ label: f.component, role: f.role })),
      ...plan.stateMachines.map((m) => ({ label: m.name, role: m.role })),
    ].forEach((principal, index) => {
      const key = `AKREHEARSAL${String(index).padStart(4, "0")}`;
      principals.set(key, principal);
      keyOf.set(principal.label, key);
    });
    const proxy = await AuthorizingProxy.start({
      evaluator,
      scope: plan,
      principals,
      setupAccessKeyId: SETUP_KEY,
      serviceRoles: new Map(plan.serviceRoles.map((role) => [role.arn, role])),
      upstreams,
      onCall: (call) => this.#record(call),
    });
    this.#closers.push(() => proxy.close());
    /** An SDK client's settings to sign as the principal of `key`, through the proxy. */
    const signing = (key: string) => ({
      endpoint: proxy.url,
      region: plan.region,
      credentials: { accessKeyId: key, secretAccessKey: "rehearsal-secret" },
    });
    const client = (key: string) => ({ ...signing(key), forcePathStyle: true });
    this.#setup = new S3Client(client(SETUP_KEY));
    await this.#createStorage(new EventBridgeClient(client(SETUP_KEY)));

    const redirects: Record<string, string> = {};
    const cartesiaKey = plan.functions
      .flatMap((f) => Object.entries(f.links))
      .find(([name]) => name === "CartesiaApiKey")?.[1] as { value?: string } | undefined;
    if (cartesiaKey?.value) {
      const ink = await startCartesiaInkStandIn(cartesiaKey.value, options.transcriber);
      this.#closers.push(() => ink.close());
      redirects[CARTESIA_HOST] = ink.url;
      this.redirects.push(
        `${CARTESIA_HOST} -> ${ink.url} (Cartesia Ink stand-in: ${recognizer}, not Ink); the functions still record the third-party boundary ${CARTESIA_HOST}`,
      );
    }
    if (plan.sonicEndpoint) {
      this.redirects.push(
        `SageMaker endpoint ${plan.sonicEndpoint} -> ${sonic.url} (${options.speechEngine ? "a given speech engine" : "flite"} behind Sonic's wire format, not Sonic); boundary stays aws-account`,
      );
    }
    this.#motoEndpoint = options.motoEndpoint;
    this.#retryIntervalMs = options.retryIntervalMs;
    const hosts = this.#hosts;
    for (const fn of plan.functions) {
      const host = new FunctionHost(
        fn,
        {
          awsEndpoint: proxy.url,
          region: plan.region,
          accessKeyId: keyOf.get(fn.component) as string,
          redirects,
        },
        bundles,
        (line) => options.onFunctionOutput?.(fn.component, line),
      );
      hosts.set(fn.arn, host);
      this.#closers.push(() => host.close());
    }
    const record = (principal: string, operation: string, decisions: Decision[]) =>
      this.#recordDecisions(principal, "states", operation, decisions);
    for (const machinePlan of plan.stateMachines) {
      const s3 = new S3Client(client(keyOf.get(machinePlan.name) as string));
      const map = distributedMapOf(machinePlan.definition);
      const definition = map?.local ?? machinePlan.definition;
      const context = {
        evaluator,
        record,
        hosts,
        s3,
        runChild: (arn: string, input: unknown) => this.#execute(arn, input),
        beforeInvoke: (functionArn: string) => this.#beforeInvoke?.(functionArn) ?? Promise.resolve(),
      };
      const handlers: Record<string, StageHandler<unknown>> = taskHandlers(machinePlan, definition, context);
      const mapContext: MapContext = { machine: machinePlan, s3, evaluator, record };
      if (map?.feeder) {
        const resource = String(definition.States[map.feeder]?.Resource);
        handlers[resource] = feeding(map, mapContext, handlers[resource] as StageHandler<unknown>);
      }
      const machine = new LocalStateMachine(
        machinePlan.name,
        definition,
        handlers,
        this.#executions,
        this.#tokens,
      );
      this.#machines.set(machinePlan.arn, {
        machine,
        plan: machinePlan,
        context: mapContext,
        ...(map ? { map } : {}),
      });
    }
    this.redirects.push(
      `AWS SDK clients -> ${proxy.url} (AWS_ENDPOINT_URL): the rehearsal's IAM proxy in front of moto_server and the stand-ins`,
    );
  }

  /** The stage's bucket (versioned, as deployed), its outcome bus, and the records object. */
  async #createStorage(events: EventBridgeClient): Promise<void> {
    const { plan } = this;
    // With Object Lock where the stage has it (S3 turns versioning on with it), as the stacks create it.
    const locked = plan.functions.some((fn) => fn.environment.VOXTRAIL_LINEAGE_RETENTION !== undefined);
    await this.#setup.send(
      new CreateBucketCommand({ Bucket: plan.bucket, ObjectLockEnabledForBucket: locked }),
    );
    await this.#setup.send(
      new PutBucketVersioningCommand({ Bucket: plan.bucket, VersioningConfiguration: { Status: "Enabled" } }),
    );
    // The bus has a fixed name per stage: an earlier rehearsal of the stage on this moto_server made it.
    await events.send(new CreateEventBusCommand({ Name: plan.outcomeBus })).catch((error: Error) => {
      if (error.name !== "ResourceAlreadyExistsException") throw error;
    });
    const recordsUri = plan.functions[0]?.environment.VOXTRAIL_RECORDS_URI;
    const records = recordsUri && /^s3:\/\/([^/]+)\/(.+)$/.exec(recordsUri);
    if (records) {
      if (records[1] !== plan.bucket) await this.#setup.send(new CreateBucketCommand({ Bucket: records[1] }));
      await this.#setup.send(
        new PutObjectCommand({
          Bucket: records[1],
          Key: records[2],
          Body: await readFile(BUNDLED_RECORDS_FILE),
        }),
      );
    }
  }

  /** Runs `workflows` in order (all by default) and reports each against what the stage must do. */
  async run(workflows: readonly RehearsedWorkflow[] = REHEARSED_WORKFLOWS): Promise<RehearsalReport> {
    const runs: RehearsedRun[] = [];
    const firstCall = this.#calls.length;
    // What AWS asks of IAM with the roles besides their principals' calls: each service assuming
    // its role, Lambda writing the functions' logs. Each must be allowed, as the policies stand now.
    const platform = await platformCalls(this.plan, this.#evaluator);
    for (const call of platform) {
      this.#record(call);
      if (!call.allowed) this.log(`${call.principal} ${call.operation}: REFUSED: ${call.refusal}`);
    }
    // Every run names its own objects, so a later run in the same stage is a new job, not a duplicate.
    const tag = `rehearsal-${++this.#runs}`;
    // A stage taking several languages is told an English call's by its folder: the rehearsal's
    // English voicemails are too short for Transcribe to identify their language.
    const english = stageLanguages(this.plan).length > 1 ? "en-US/" : "";
    const callKey = (name: string) => keys.incomingVoicemail(`${tag}/${english}${name}`);
    const voicemailKey = callKey(UPLOAD_NAMES.voicemail);
    const manifestKey = `${PROMPTS_INCOMING_PREFIX}${tag}/${UPLOAD_NAMES.prompts}`;
    let voicemailEvent: unknown;
    let promptsEvent: unknown;
    await this.#createStateMachines();
    for (const workflow of workflows.filter((each) => each !== "spanishVoicemail" || this.#spanish)) {
      this.log(`${workflow}: running`);
      this.#workflow = workflow;
      if (SCHEDULED[workflow]) {
        const run = await this.#runSchedules(workflow);
        runs.push(run);
        this.log(`${workflow}: ${run.outcome} (expected ${run.expected})`);
        continue;
      }
      let event: unknown;
      const askedBefore = this.#sonicAsked.length;
      switch (workflow) {
        case "voicemail":
          event = await this.#upload(
            voicemailKey,
            await readFile(join(BUNDLED_VOICEMAILS_DIR, VOICEMAIL)),
            "audio/wav",
          );
          voicemailEvent = event;
          break;
        case "spanishVoicemail":
          event = await this.#upload(
            keys.incomingVoicemail(`${tag}/${SPANISH_CALL_LANGUAGE}/${UPLOAD_NAMES.voicemail}`),
            await spanishVoicemailWav(),
            "audio/wav",
          );
          break;
        case "duplicate":
          event =
            voicemailEvent ??
            (await this.#upload(
              voicemailKey,
              await readFile(join(BUNDLED_VOICEMAILS_DIR, VOICEMAIL)),
              "audio/wav",
            ));
          break;
        case "duplicateWhileRunning":
          // One upload delivered again while its first execution runs: the second Ingest finds the
          // first's claim without a report, and asks Step Functions whether it still runs.
          event = await this.#upload(
            callKey(`again-${VOICEMAIL}`),
            await readFile(join(BUNDLED_VOICEMAILS_DIR, VOICEMAIL)),
            "audio/wav",
          );
          break;
        case "invalidAudio":
          event = await this.#upload(callKey("not-audio.wav"), "not audio at all", "audio/wav");
          break;
        case "prompts":
          event = await this.#upload(manifestKey, PROMPTS_MANIFEST, "text/csv");
          promptsEvent = event;
          break;
        case "promptsRerun":
          event = promptsEvent ?? (await this.#upload(manifestKey, PROMPTS_MANIFEST, "text/csv"));
          break;
        case "promptsStopped":
          event = await this.#upload(
            `${PROMPTS_INCOMING_PREFIX}${tag}/stopped-${UPLOAD_NAMES.prompts}`,
            PROMPTS_MANIFEST,
            "text/csv",
          );
          break;
        case "batch":
          event = await this.#upload(
            `${BATCH_INCOMING_PREFIX}${tag}/${UPLOAD_NAMES.batch}`,
            ["key", voicemailKey, callKey("missing.wav")].join("\n"),
            "text/csv",
          );
          break;
        case "batchStopped": {
          // A voicemail uploaded without its event delivered: only the batch runs it.
          const stoppedKey = callKey(`stopped-${VOICEMAIL}`);
          await this.#upload(
            stoppedKey,
            await readFile(join(BUNDLED_VOICEMAILS_DIR, VOICEMAIL)),
            "audio/wav",
          );
          event = await this.#upload(
            `${BATCH_INCOMING_PREFIX}${tag}/stopped-${UPLOAD_NAMES.batch}`,
            ["key", stoppedKey].join("\n"),
            "text/csv",
          );
          break;
        }
      }
      const stoppedAt = STOPPED_AT[workflow];
      const results =
        workflow === "duplicateWhileRunning"
          ? await this.#deliverAgainWhileRunning(event)
          : stoppedAt
            ? [await this.#deliverAndStop(event, stoppedAt)]
            : [await this.#deliver(event)];
      const result = results[0];
      const expected = EXPECTED_OUTCOMES[workflow];
      let outcome = results
        .map((r) => (r ? describe(r, this.#items.get(r.executionArn)) : "NOT_STARTED"))
        .sort()
        .join(" + ");
      // The Spanish reply must reach Sonic asking for Spanish (`language: "es"`), not English.
      if (workflow === "spanishVoicemail" && result?.status === "SUCCEEDED")
        outcome += `, Sonic asked ${askedLanguages(this.#sonicAsked.slice(askedBefore))}`;
      runs.push({
        workflow,
        stateMachine: result?.executionArn.split(":")[6] ?? "-",
        status: result?.status ?? "NOT_STARTED",
        ...(result?.status === "FAILED" ? { error: result.error, cause: result.cause } : {}),
        expected,
        ok: meets(outcome, expected),
        outcome,
      });
      this.log(`${workflow}: ${outcome} (expected ${expected})`);
    }
    this.#workflow = undefined;
    const calls = this.#calls.slice(firstCall);
    return {
      stage: this.plan.stage,
      redirects: this.redirects,
      runs,
      calls,
      ok:
        runs.every((run) => run.ok) &&
        !calls.some((call) => call.unmapped || !call.allowed) &&
        platform.every((c) => c.allowed),
    };
  }

  /**
   * EventBridge Scheduler: each schedule of `workflow`'s function ({@link SCHEDULED}) invokes it
   * with its input, as the schedule's role (`lambda:InvokeFunction`), as its time comes. The run is
   * then checked as an auditor would: the lineage signer's digest verifies with the key's public
   * half from KMS; the index compactor's symlinks name the latest manifest's files, and its reader
   * policy lets an auditor's query read them.
   */
  async #runSchedules(workflow: RehearsedWorkflow): Promise<RehearsedRun> {
    const expected = EXPECTED_OUTCOMES[workflow];
    const handler = SCHEDULED[workflow];
    const outcomes: string[] = [];
    const schedules = this.plan.schedules.filter(
      (schedule) => this.plan.functions.find((fn) => fn.arn === schedule.targetArn)?.handler === handler,
    );
    for (const schedule of schedules) {
      const decision = await this.#evaluator.authorize({
        role: schedule.role,
        action: "lambda:InvokeFunction",
        resource: schedule.targetArn,
      });
      this.#recordDecisions(
        `schedule ${schedule.logicalName}`,
        "scheduler",
        "target: lambda:InvokeFunction",
        [decision],
      );
      const host = this.#hosts.get(schedule.targetArn);
      if (!decision.allowed || !host) {
        outcomes.push(`NOT_STARTED ${decision.allowed ? "no function" : "AccessDenied"}`);
        continue;
      }
      try {
        const output = await host.invoke(schedule.input);
        const checking = { plan: this.plan, motoEndpoint: this.#motoEndpoint };
        if (workflow === "lineageDigest") {
          outcomes.push(await signedDigest(output as DigestRun, checking));
        } else {
          const check = await indexedForAthena(output as IndexRun, {
            ...checking,
            evaluator: this.#evaluator,
          });
          if (check.reads.length > 0) {
            this.#recordDecisions(
              `auditor (${this.plan.lineageIndex?.readerPolicy.name})`,
              "athena",
              "a query of the index's tables, as Athena reads them for the caller",
              check.reads,
            );
          }
          outcomes.push(check.outcome);
        }
      } catch (error) {
        const { name, message } = error as Error;
        outcomes.push(`FAILED ${name}: ${message}`);
      }
    }
    const outcome = outcomes.sort().join(" + ") || "NOT_STARTED no schedule";
    return {
      workflow,
      stateMachine: "-",
      status: outcome.startsWith("SUCCEEDED")
        ? "SUCCEEDED"
        : outcome.startsWith("FAILED")
          ? "FAILED"
          : "NOT_STARTED",
      expected,
      ok: meets(outcome, expected),
      outcome,
    };
  }

  /**
   * Takes statement `index` (1-based) of the role's policy `policy` away, or puts `replacement` in
   * its place, until the returned function puts it back: the next runs are authorized without it.
   */
  withoutStatement(statement: StatementRef, replacement?: Record<string, unknown>): () => void {
    const document = rolesOf(this.plan)
      .get(statement.role)
      ?.policies.find((p) => p.name === statement.policy)?.document;
    const removed = document?.Statement.splice(statement.index - 1, 1, ...(replacement ? [replacement] : []));
    if (!document || removed?.length !== 1) throw new Error(`no statement ${JSON.stringify(statement)}`);
    // The role's functions start cold: nothing a warm environment read under the old policy counts.
    for (const host of this.#hosts.values()) {
      if (host.plan.role.logicalName === statement.role) void host.recycle();
    }
    return () => document.Statement.splice(statement.index - 1, replacement ? 1 : 0, ...removed);
  }

  /**
   * What Step Functions asks of each state machine's role as the stage creates or updates it
   * ({@link createStateMachine}), at the start of every run: a run is of the stage as deployed
   * under the policies then in place.
   */
  async #createStateMachines(): Promise<void> {
    for (const { plan, context } of this.#machines.values()) await createStateMachine(plan, context);
  }

  /** Records IAM decisions the rehearsal made itself (Step Functions' and EventBridge's calls). */
  #recordDecisions(principal: string, service: string, operation: string, decisions: Decision[]): void {
    const refused = decisions.find((d) => !d.allowed);
    this.#record({
      principal,
      service,
      operation,
      allowed: !refused,
      decisions,
      ...(refused ? { refusal: refused.refusal ?? "denied" } : {}),
    });
  }

  #record(call: CallRecord): void {
    this.#calls.push(this.#workflow ? { ...call, workflow: this.#workflow } : call);
  }

  async close(): Promise<void> {
    for (const close of this.#closers.reverse()) await close().catch(() => undefined);
    this.#closers.length = 0;
  }

  /** Puts an object as a user would, and returns the event EventBridge delivers for it. */
  async #upload(key: string, body: Uint8Array | string, contentType: string): Promise<unknown> {
    const put = await this.#setup.send(
      new PutObjectCommand({ Bucket: this.plan.bucket, Key: key, Body: body, ContentType: contentType }),
    );
    const bytes = typeof body === "string" ? Buffer.byteLength(body) : body.byteLength;
    return objectCreatedEvent(
      this.plan.bucket,
      {
        key,
        bytes,
        ...(put.ETag ? { etag: put.ETag } : {}),
        ...(put.VersionId ? { versionId: put.VersionId } : {}),
      } as never,
      new Date(),
      { account: this.plan.account, region: this.plan.region },
    );
  }

  /**
   * Delivers `event`, holds its execution back before Transcribe (the job claimed, no report
   * yet), delivers the same event again, and lets the first go on once the second has ended.
   */
  async #deliverAgainWhileRunning(event: unknown): Promise<Array<ExecutionResult | undefined>> {
    const transcribe = this.plan.functions.find((f) => f.component === "StageTranscribe")?.arn;
    let reached: () => void = () => undefined;
    let release: () => void = () => undefined;
    const atTranscribe = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#beforeInvoke = async (functionArn) => {
      if (functionArn !== transcribe) return;
      this.#beforeInvoke = undefined;
      reached();
      await released;
    };
    try {
      const first = this.#deliver(event);
      await Promise.race([atTranscribe, first]);
      const second = await this.#deliver(event);
      release();
      return [await first, second];
    } finally {
      release();
      this.#beforeInvoke = undefined;
    }
  }

  /**
   * Delivers `event`, holds its execution at every invocation of the function `component` (as a
   * StopExecution would find it, that work under way), and stops it: Step Functions stops what the
   * execution started, as its state machine's role ({@link stopMapRun}, {@link stopSyncChildren}),
   * and every execution started meanwhile ends ABORTED, the held invocations never made.
   */
  async #deliverAndStop(event: unknown, component: string): Promise<ExecutionResult | undefined> {
    const held = this.plan.functions.find((f) => f.component === component)?.arn;
    const stop = new AbortController();
    let reach: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      reach = resolve;
    });
    // The held invocations fail once every execution is aborted, so nothing waits on them (their
    // Task states' timers among it): an aborted execution runs no further state.
    let unhold: (error: Error) => void = () => undefined;
    const released = new Promise<never>((_, reject) => {
      unhold = reject;
    });
    released.catch(() => undefined);
    const end = () => {
      stop.abort();
      unhold(new Error("the execution was stopped"));
    };
    this.#beforeInvoke = async (functionArn) => {
      if (functionArn !== held) return;
      reach();
      await released;
    };
    this.#stopping = stop.signal;
    try {
      const delivered = this.#deliver(event);
      await Promise.race([reached, delivered]);
      const target = this.plan.rules.find((rule) => matchesPattern(event, rule.pattern as EventPattern));
      const entry = target && this.#machines.get(target.targetArn);
      if (entry) {
        if (entry.map) await stopMapRun(entry.map, entry.context);
        await stopSyncChildren(entry.plan, entry.context, (name) => this.#executions.running(name));
      }
      end();
      return await delivered;
    } finally {
      end();
      this.#beforeInvoke = undefined;
      this.#stopping = undefined;
    }
  }

  /**
   * EventBridge, for an event a service sends (Amazon Transcribe's job state change): every rule
   * whose pattern matches and whose target is a function invokes it, if the function's resource
   * policy lets EventBridge do so for that rule (`lambda:InvokeFunction`, principal
   * `events.amazonaws.com`, `aws:SourceArn` the rule's), with the input its transformer makes,
   * asynchronously, as EventBridge invokes a Lambda target. Each invocation's permission is
   * recorded; a failed invocation is logged.
   */
  async #deliverToFunctions(event: unknown): Promise<void> {
    for (const rule of this.plan.rules) {
      if (rule.role || !matchesPattern(event, rule.pattern as EventPattern)) continue;
      const host = this.#hosts.get(rule.targetArn);
      const grant = this.plan.invokePermissions.find(
        (permission) =>
          (permission.functionName === host?.plan.name || permission.functionName === rule.targetArn) &&
          permission.principal === "events.amazonaws.com" &&
          permission.action === "lambda:InvokeFunction" &&
          permission.sourceArn === rule.arn,
      );
      const decision: Decision = {
        role: `resource policy of ${host?.plan.component ?? rule.targetArn}`,
        action: "lambda:InvokeFunction",
        resource: rule.targetArn,
        context: { "aws:SourceArn": rule.arn },
        allowed: grant !== undefined && host !== undefined,
        ...(grant
          ? { statement: { policy: `resource policy (${grant.logicalName})`, index: 1 } }
          : { refusal: `no permission lets events.amazonaws.com invoke it for ${rule.arn}` }),
      };
      this.#recordDecisions(`rule ${rule.logicalName}`, "events", "target: lambda:InvokeFunction", [
        decision,
      ]);
      if (!decision.allowed || !host) continue;
      const input = rule.inputTransformer ? transformedInput(rule.inputTransformer, event) : event;
      await host.invoke(input).catch((error: Error) => {
        this.log(`rule ${rule.logicalName}: ${host.plan.component} failed: ${error.name}: ${error.message}`);
      });
    }
  }

  /** EventBridge: every rule whose pattern matches starts its target state machine, as the rule's role. */
  async #deliver(event: unknown): Promise<ExecutionResult | undefined> {
    let result: ExecutionResult | undefined;
    for (const rule of this.plan.rules) {
      if (!rule.role || !matchesPattern(event, rule.pattern as EventPattern)) continue;
      const decision = await this.#evaluator.authorize({
        role: rule.role,
        action: "states:StartExecution",
        resource: rule.targetArn,
      });
      this.#recordDecisions(`rule ${rule.logicalName}`, "events", "target: states:StartExecution", [
        decision,
      ]);
      if (!decision.allowed) continue;
      result = await this.#execute(rule.targetArn, event);
    }
    return result;
  }

  /** Runs one execution of the state machine `arn`, its Distributed Map played around the engine. */
  async #execute(arn: string, input: unknown): Promise<ExecutionResult> {
    const entry = this.#machines.get(arn);
    if (!entry) throw new Error(`the stage deploys no state machine ${arn}`);
    const { machine, map, context } = entry;
    const signal = this.#stopping;
    const writeFailures: unknown[] = [];
    const items: unknown[] = [];
    const caught = new Map<string, number>();
    let upload: Promise<ResultUpload> | undefined;
    let written: Promise<void> | undefined;
    let iterations = 0;
    let start = input;
    if (map && !map.feeder) {
      try {
        start = await withItems(map, context, input);
      } catch (error) {
        // Step Functions fails the Map state, and so the execution, when its ItemReader fails.
        const executionArn = this.#executions.start(arn.split(":").at(-1) as string);
        this.#executions.finished(executionArn, "FAILED");
        return { status: "FAILED", executionArn, error: "States.ItemReaderFailed", cause: String(error) };
      }
    }
    const result = await machine.start(start, {
      callbackWaitMs: CALLBACK_WAIT_MS,
      retryIntervalMs: this.#retryIntervalMs,
      ...(signal ? { signal } : {}),
      onEvent: (event) => {
        if (!map) return;
        if (event.type === "StateEntered" && event.state?.name === map.name) {
          upload = startResults(map, context, event.state.input);
          upload.catch(() => undefined);
        }
        if (event.type === "MapIterationSucceeded" || event.type === "MapIterationFailed") iterations++;
        // A Task whose error was caught exits too (StateCaught, then StateExited): its Catch target,
        // not it, ends the item.
        const name = event.state?.name ?? "";
        if (event.type === "StateCaught") caught.set(name, (caught.get(name) ?? 0) + 1);
        if (event.type === "StateExited" && map.itemEnds.includes(name)) {
          if ((caught.get(name) ?? 0) > 0) caught.set(name, (caught.get(name) ?? 0) - 1);
          else items.push(event.state?.output);
        }
        if (event.type === "StateExited" && event.state?.name === map.name && upload) {
          const count = iterations;
          written = upload
            .then((results) => results.complete(count))
            .catch((error) => void writeFailures.push(error));
        }
      },
    });
    // A Map that did not end (its execution stopped, or failed in it) leaves its upload discarded.
    await (written ??
      upload?.then((results) => results.abort()).catch((error) => void writeFailures.push(error)));
    this.#items.set(result.executionArn, items);
    if (result.status === "SUCCEEDED" && writeFailures.length > 0) {
      // ... and when its ResultWriter cannot write the results.
      this.#executions.finished(result.executionArn, "FAILED");
      return {
        status: "FAILED",
        executionArn: result.executionArn,
        error: "States.ResultWriterFailed",
        cause: String(writeFailures[0]),
      };
    }
    if (result.status !== "SUCCEEDED") this.#executions.finished(result.executionArn, result.status);
    return result;
  }
}

/**
 * The IVR prompts the rehearsal generates: two good rows, one the manifest check refuses, and one
 * whose synthesis the endpoint rejects (its voice), so both failure paths run.
 */
const PROMPTS_MANIFEST = [
  "id,text,voice",
  "welcome,Thanks for calling. Please hold.,",
  "closed,We are closed. Please call back tomorrow.,",
  "empty,   ,",
  `rejected,This voice does not exist.,${REJECTED_VOICE_ID}`,
].join("\n");

/**
 * What each workflow must do on every stage: a voicemail runs end to end, with its stage's
 * transcriber (production's, Amazon Transcribe, is in the account, which its boundary policy
 * allows for caller audio; dev's, Cartesia Ink, is a third party, which dev's allows); a delivery
 * of the same upload again is a duplicate, after the first run or during it; a file that is not
 * audio fails in Ingest, and the failure recorder records it; the batch's voicemail is a duplicate
 * of the first, and its missing key fails its item, not the batch. The hourly lineage signer, its
 * hour come after the first voicemail, writes a digest whose signature verifies with its KMS key's
 * public half. The index compactor, run then and again at the end, leaves the symlinks naming the
 * latest generation's live files, which the auditors' reader policy lets a query read. A stage
 * taking `es-US` calls with Amazon Transcribe answers a Spanish voicemail in Spanish: Sonic is
 * asked for `language: "es"` only.
 */
const EXPECTED_OUTCOMES: Record<RehearsedWorkflow, string> = {
  voicemail: "SUCCEEDED",
  spanishVoicemail: "SUCCEEDED, Sonic asked es",
  lineageDigest: "SUCCEEDED signed",
  lineageIndex: "SUCCEEDED indexed",
  lineageIndexUpdate: "SUCCEEDED indexed",
  duplicate: "SUCCEEDED duplicate",
  duplicateWhileRunning: "SUCCEEDED + SUCCEEDED duplicate",
  invalidAudio: "FAILED IngestFailed: InvalidAudio",
  prompts: "SUCCEEDED 2 succeeded, 1 failed, 0 not run, 1 bad",
  promptsRerun: "SUCCEEDED 2 succeeded, 1 failed, 0 not run, 1 bad",
  promptsStopped: "ABORTED",
  batch: "SUCCEEDED [FAILED S3.NoSuchKeyException, duplicate]",
  batchStopped: "ABORTED",
};

/** The languages Sonic requests asked for, each once, sorted ("en" for a request naming none); "nothing" for none. */
function askedLanguages(asked: readonly SonicAsked[]): string {
  const languages = [...new Set(asked.map((request) => request.language ?? "en"))].sort();
  return languages.length > 0 ? languages.join(", ") : "nothing";
}

/**
 * Whether the stage transcribes with Amazon Transcribe: its functions are told a job name prefix
 * (and so its Transcribe function starts jobs, which Transcribe runs with its data-access role).
 */
function transcribesWithAmazonTranscribe(plan: StagePlan): boolean {
  return plan.functions.some((fn) => fn.environment.VOXTRAIL_TRANSCRIBE_JOB_PREFIX !== undefined);
}

/**
 * Whether each delivery's outcome (` + `-separated, sorted) is what was expected of it; a failure
 * is expected by its error and cause's name, its message left out.
 */
function meets(outcome: string, expected: string): boolean {
  const got = outcome.split(" + ");
  const wanted = expected.split(" + ");
  return (
    got.length === wanted.length &&
    wanted.every(
      (part, i) => got[i] === part || (part.startsWith("FAILED") && got[i]?.startsWith(`${part}:`)),
    )
  );
}

/**
 * An execution's outcome as one line: the status, then the Fail state's error and cause; a prompts
 * job's totals; a batch's item outcomes (`duplicate`, `SUCCEEDED`, `FAILED <error>`), sorted.
 */
function describe(result: ExecutionResult, items: unknown[] | undefined): string {
  if (result.status === "ABORTED") return "ABORTED";
  if (result.status === "FAILED") return `FAILED ${result.error}: ${result.cause}`;
  const output = result.output as
    | { duplicate?: unknown; totals?: { succeeded: number; failed: number; notRun: number; badRows: number } }
    | undefined;
  if (output?.duplicate) return "SUCCEEDED duplicate";
  if (output?.totals) {
    const { succeeded, failed, notRun, badRows } = output.totals;
    return `SUCCEEDED ${succeeded} succeeded, ${failed} failed, ${notRun} not run, ${badRows} bad`;
  }
  if (items && items.length > 0 && items.every((item) => (item as { key?: unknown }).key !== undefined)) {
    const outcomes = items.map((item) => {
      const { status, error, execution } = item as {
        status?: string;
        error?: string;
        execution?: { status?: string; output?: string };
      };
      if (status === "FAILED") return `FAILED ${error}`;
      const child = JSON.parse(execution?.output ?? "{}") as { duplicate?: unknown };
      return child.duplicate ? "duplicate" : String(execution?.status);
    });
    return `SUCCEEDED [${outcomes.sort().join(", ")}]`;
  }
  return "SUCCEEDED";
}
