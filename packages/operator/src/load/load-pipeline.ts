import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import { TranscribeClient } from "@aws-sdk/client-transcribe";
import { Gauge, LOCAL_BOUNDARY } from "@voxtrail/core";
import { createStageHandlers, type StageHandler } from "@voxtrail/functions";
import {
  BUNDLED_RECORDS_FILE,
  invokeLikeLambda,
  LOCAL_FUNCTION_ARNS,
  LocalStateMachine,
  localDependencies,
  matchesPattern,
  RunningExecutions,
  type StartedSonicEndpoint,
  startSonicEndpoint,
  startTranscribeEndpoint,
  TaskTokens,
  type TranscribeEndpoint,
} from "@voxtrail/local";
import { AmazonTranscribe, LocalReasoner, SonicSageMakerSynthesizer } from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import {
  functionTimeoutSeconds,
  STAGE_TIMEOUT_SECONDS,
  type StageFunction,
  SYNTHESIZER_LANGUAGES,
  transcriptionEndedInput,
  transcriptionEndedPattern,
  VOICEMAIL_WORKFLOW,
} from "@voxtrail/workflow";
import { BedrockThrottle } from "./bedrock-throttle";
import { withOneRetry } from "./before-waiting";
import { deliverWithRetries } from "./eventbridge-delivery";
import { InProcessAgent } from "./in-process-agent";
import { LAMBDA_THROTTLED, LambdaGates } from "./lambda-gates";
import type { LoadQuotas } from "./load-options";
import { SIMULATED_LABEL, SimulatedSpeechEngine, simulatedRecogniser } from "./simulated-engines";
import { ThrottledReasoner } from "./throttled-reasoner";

/** What every load run's Transcribe job names start with (a stage's `<app>-<stage>-`). */
const JOB_NAME_PREFIX = "voxtrail-load-";

/** The data-access role the service names when queueing is on: the stand-in checks one is given. */
const DATA_ACCESS_ROLE_ARN = "arn:aws:iam::000000000000:role/voxtrail-load-transcribe-data-access";

/** Production's Sonic voice (config/stages/production.json); the simulated engine ignores it. */
const VOICE_ID = "bf0a246a-8642-498a-9950-80c35e9276b5";

/**
 * Audio per chunk event of the Sonic stand-in in a load run: half a second, where Sonic sends at
 * most 20 ms. Each chunk is one wait on the virtual clock (the generation pace), so 20 ms chunks
 * would make a 10,000-voicemail run fire millions of timers; the pace per second of audio, and so
 * each stream's duration and the endpoint's occupancy, are the same.
 */
const SONIC_CHUNK_MS = 500;

const REGION = "us-east-1";
const CREDENTIALS = { accessKeyId: "load", secretAccessKey: "load" };

/** The deployed voicemail workflow on this machine, behind the stand-ins and gates of a load run. */
export interface LoadPipeline {
  /** The directory store standing in for the stage's bucket (a temp dir). */
  store: DirectoryStore;
  /** The production voicemail state machine's definition (`service-job`), run by the local engine. */
  machine: LocalStateMachine;
  transcribe: TranscribeEndpoint;
  sonic: StartedSonicEndpoint;
  gates: LambdaGates;
  /** The Bedrock-like throttle in front of the reasoner, when `quotas.bedrock` asks for one. */
  bedrock: BedrockThrottle | undefined;
  /** Jobs whose execution is running (the kernel records it on every attempt). */
  jobsInFlight: Gauge;
  /** Seconds of reply audio the simulated Sonic engine made: its generation work. */
  sonicAudioSeconds(): number;
  /** Transcription events delivered, dropped (EventBridge's retries used up) and resume outcomes. */
  eventDeliveries(): { delivered: number; dropped: number };
  /** Whether `event` matches the voicemail rule (S3 "Object Created" under incoming/voicemail/). */
  matchesRule(event: unknown): boolean;
  /** Stops the stand-ins and deletes the store. */
  close(): Promise<void>;
}

/**
 * Stands production's voicemail workflow up for a load run: the same ASL
 * (`VOICEMAIL_WORKFLOW.definition(arns, "service-job")`) on the local engine, with the real stage
 * handlers (`createStageHandlers` over `localDependencies`) behind Lambda's concurrency gates;
 * Transcribe as the local Transcribe stand-in with `quotas.transcribe` (queueing on through a
 * data-access role, jobs lasting `jobRunTime`) over a simulated recogniser, its job events
 * delivered to the Transcribe function's resume step as EventBridge would (asynchronously, retried
 * when Lambda throttles); synthesis through the real SageMaker Runtime client against the local
 * Sonic stand-in with production's capacity and autoscaling over a simulated engine; with
 * `quotas.bedrock`, the local reasoner behind a Bedrock-like throttle ({@link ThrottledReasoner}).
 * Both stand-ins are reached over in-memory connections ({@link InProcessAgent}). Every simulated
 * engine's processor says `simulated` in its model and version.
 */
export async function startLoadPipeline(quotas: LoadQuotas): Promise<LoadPipeline> {
  const root = await mkdtemp(join(tmpdir(), "voxtrail-load-"));
  // A scratch store, deleted after the run: its writes need not survive a power cut.
  const store = new DirectoryStore({ root, durable: false });
  const running = new RunningExecutions();
  const tokens = new TaskTokens();
  const gates = new LambdaGates(quotas.lambda);
  const jobsInFlight = new Gauge();
  const deliveries = { delivered: 0, dropped: 0 };
  let onJobEnded: (event: unknown) => void = () => {};

  const transcribe = await startTranscribeEndpoint({
    store,
    transcriber: simulatedRecogniser(),
    quotas: quotas.transcribe.quotas,
    jobRunTime: quotas.transcribe.jobRunTime,
    onJobStateChange: (event) => onJobEnded(event),
  });
  const speech = new SimulatedSpeechEngine();
  const sonic = await startSonicEndpoint({
    engine: speech,
    capacity: quotas.sonic.capacity,
    generationTime: quotas.sonic.generationTime,
    chunkMs: SONIC_CHUNK_MS,
  }).catch(async (error) => {
    await transcribe.close();
    throw error;
  });

  const transcriptionService = await AmazonTranscribe.create({
    client: new TranscribeClient({
      endpoint: transcribe.url,
      region: REGION,
      credentials: CREDENTIALS,
      requestHandler: { httpAgent: new InProcessAgent(transcribe.httpServer) },
    }),
    jobNamePrefix: JOB_NAME_PREFIX,
    ...(quotas.transcribe.queueing ? { dataAccessRoleArn: DATA_ACCESS_ROLE_ARN } : {}),
    describedAs: {
      model: `${SIMULATED_LABEL}: hears no audio, one fixed transcript, behind the local Transcribe stand-in's API; not Amazon Transcribe`,
      version: SIMULATED_LABEL,
      endpoint: transcribe.url,
    },
  });
  const synthesizer = new SonicSageMakerSynthesizer({
    client: new SageMakerRuntimeClient({
      endpoint: sonic.url,
      region: REGION,
      credentials: CREDENTIALS,
      requestHandler: { httpAgent: new InProcessAgent(sonic.httpServer) },
    }),
    endpointName: "voxtrail-load-sonic",
    voiceId: VOICE_ID,
    languages: SYNTHESIZER_LANGUAGES.local,
    processor: {
      provider: "local-sonic-endpoint",
      model: `${SIMULATED_LABEL}: silence as long as the reply, behind the local Sonic stand-in's wire format; not Sonic`,
      version: SIMULATED_LABEL,
      endpoint: sonic.url,
      boundary: LOCAL_BOUNDARY,
    },
  });

  const bedrock = quotas.bedrock ? new BedrockThrottle(quotas.bedrock) : undefined;
  const deps = await localDependencies({
    executions: running,
    workflowCallback: tokens,
    store,
    recordsFile: BUNDLED_RECORDS_FILE,
    // Transcribe runs as the service's job; the embedded transcriber is never called.
    providers: { transcriber: "simulated", reasoner: "local", synthesizer: "local" },
    engines: {
      synthesizer,
      ...(bedrock ? { reasoner: new ThrottledReasoner(new LocalReasoner(), bedrock) } : {}),
    },
    transcriptionService,
  });
  const handlers = createStageHandlers({ ...deps, jobsInFlight: () => jobsInFlight.value });
  const gated = Object.fromEntries(
    Object.entries(handlers).map(([fn, handler]) => [fn, gates.wrap(fn, handler)]),
  ) as Record<StageFunction, StageHandler<unknown>>;
  const arns = LOCAL_FUNCTION_ARNS;
  const definition = VOICEMAIL_WORKFLOW.definition(arns, "service-job");
  const machine = new LocalStateMachine(
    "voxtrail-voicemail",
    quotas.retry ? withOneRetry(definition, quotas.retry) : definition,
    Object.fromEntries(VOICEMAIL_WORKFLOW.functions.map((fn) => [arns[fn], gated[fn]])),
    running,
    tokens,
  );

  // The rule on Transcribe's job events: its target, the Transcribe function's resume step,
  // invoked asynchronously; a Lambda throttle is retried by EventBridge's policy.
  const pattern = transcriptionEndedPattern(JOB_NAME_PREFIX);
  const resumeTimeout = functionTimeoutSeconds(STAGE_TIMEOUT_SECONDS.Transcribe);
  onJobEnded = (event) => {
    if (!matchesPattern(event, pattern)) return;
    setTimeout(() => {
      deliverWithRetries(
        async () => {
          await invokeLikeLambda(
            gated.transcribe,
            arns.transcribe,
            resumeTimeout,
            transcriptionEndedInput(event),
          );
        },
        (error) => (error as Error).name === LAMBDA_THROTTLED,
      ).then((outcome) => {
        if (outcome.delivered) deliveries.delivered += 1;
        else deliveries.dropped += 1;
      });
    }, 0);
  };

  return {
    store,
    machine,
    transcribe,
    sonic,
    gates,
    bedrock,
    jobsInFlight,
    sonicAudioSeconds: () => speech.audioSeconds,
    eventDeliveries: () => ({ ...deliveries }),
    matchesRule: (event) => matchesPattern(event, VOICEMAIL_WORKFLOW.rulePattern(store.bucket)),
    close: async () => {
      await sonic.close();
      await transcribe.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
