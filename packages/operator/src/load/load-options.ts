import { fileURLToPath } from "node:url";
import {
  AWS_TRANSCRIBE_QUOTAS,
  type GenerationTime,
  type JobRunTime,
  type SonicCapacity,
  type TranscribeQuotas,
} from "@voxtrail/local";
import { type RetryPolicy, SERVICE_QUOTAS } from "@voxtrail/workflow";
import { loadStageConfig, synthesisGates } from "../../../../stacks/stage-config";
import type { BedrockQuota } from "./bedrock-throttle";
import type { LambdaConcurrency } from "./lambda-gates";
import type { StartExecutionQuota } from "./start-rate";

/** How voicemails arrive: all at once, or at a steady rate. */
export type Arrival = { kind: "burst" } | { kind: "rate"; perMinute: number };

/** Every quota and pace a load run enforces; {@link productionLoadOptions} gives the defaults, each cited. */
export interface LoadQuotas {
  transcribe: {
    /** Amazon Transcribe's quotas (AWS_TRANSCRIBE_QUOTAS: AWS's defaults, docs/stand-in-quotas.md). */
    quotas: TranscribeQuotas;
    /** Whether jobs are started with job queueing on (the service gets a data-access role), as the stage does. */
    queueing: boolean;
    /** How long a job runs for its audio ({@link DEFAULT_JOB_RUN_TIME}). */
    jobRunTime: JobRunTime;
  };
  sonic: {
    /** The endpoint's capacity: production's instances, generations per instance and autoscaling. */
    capacity: SonicCapacity;
    /** Time per second of reply audio ({@link DEFAULT_GENERATION_TIME}). */
    generationTime: GenerationTime;
  };
  /** Lambda's concurrency: the account's 1,000 and the stage's reservations. */
  lambda: LambdaConcurrency;
  /** Step Functions' StartExecution bucket (SERVICE_QUOTAS: 1,300, refilled 300 a second). */
  startExecution: StartExecutionQuota;
  /**
   * A Bedrock-like throttle in front of the reasoner (the local one, relabelled simulated); none
   * when absent, as in production, whose reasoner is local. {@link DEFAULT_BEDROCK_QUOTA} is a guess.
   */
  bedrock?: BedrockQuota;
  /**
   * One retry policy for every Task in place of the definition's retry classes (the design before
   * the workflow learned to wait: `beforeWaiting`); the definition's own when absent.
   */
  retry?: RetryPolicy;
}

/**
 * A Transcribe job holds its slot 1 s per second of audio: the capacity model's guess
 * (`DEFAULT_CAPACITY_PARAMETERS.transcribeJobSecondsPerAudioSecond`, packages/cli/src/capacity):
 * AWS publishes no batch job time.
 */
export const DEFAULT_JOB_RUN_TIME: JobRunTime = { fixedSeconds: 0, secondsPerAudioSecond: 1 };

/**
 * Sonic generates 0.2 s per second of audio: Cartesia's hardware page measures Sonic 3.5 on an L40S
 * at a real-time factor of about 0.20 (P50) at 8 concurrent streams (docs/volume.md).
 */
export const DEFAULT_GENERATION_TIME: GenerationTime = { secondsPerAudioSecond: 0.2 };

/**
 * The simulated Bedrock-like throttle's quota unless one is given: 50 requests and 100,000 tokens a
 * minute. A guess: Bedrock's quota pages name the quotas per model and Region but give no figure
 * for Claude Haiku or Nova (SERVICE_QUOTAS.bedrock); the only figure found, 100 requests and
 * 200,000 tokens a minute for Claude, is a re:Post answer quoting an older quotas page, and AWS
 * may give new accounts less, so this takes half of it. Read the model's quotas in Service Quotas.
 */
export const DEFAULT_BEDROCK_QUOTA: BedrockQuota = { requestsPerMinute: 50, tokensPerMinute: 100_000 };

/** Reservations outside the voicemail workflow that the account's pool loses (stacks/lineage-index.ts: 1). */
const LINEAGE_COMPACTION_RESERVED = 1;

/** The repository's root, where config/stages/ lives. */
const REPOSITORY_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * The quotas of a run of production's voicemail workflow: Transcribe's AWS defaults with queueing
 * on; the Sonic endpoint as config/stages/production.json sizes it (minInstances 2 autoscaling to
 * maxInstances 6, 4 generations each, target 3), scaling out on SageMaker's timings (the fleet's
 * defaults: 10 s metric periods, 3 breaching datapoints, 5 minutes' start-up, a guess; see
 * `SonicAutoscaling`); Synthesize's reserved concurrency from
 * `synthesisGates` (18; SynthesizePrompt's 6 and the lineage compaction's 1 also leave the
 * account's pool); the account's 1,000 concurrent executions and the StartExecution bucket from
 * SERVICE_QUOTAS (packages/workflow/src/service-quotas.ts, docs/volume.md).
 */
export function productionLoadQuotas(): LoadQuotas {
  // The model package ARN is the account's; the quotas do not depend on it.
  const { config } = loadStageConfig("production", REPOSITORY_ROOT, {
    VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: "arn:aws:sagemaker:us-east-1:000000000000:model-package/load-rehearsal",
  });
  const sonic = config.sonic;
  const gates = synthesisGates(config);
  if (!sonic || !("modelPackageArn" in sonic) || !gates) {
    throw new Error("production's stage config no longer creates its Sonic endpoint");
  }
  return {
    transcribe: { quotas: { ...AWS_TRANSCRIBE_QUOTAS }, queueing: true, jobRunTime: DEFAULT_JOB_RUN_TIME },
    sonic: {
      capacity: {
        generationsPerInstance: sonic.generationsPerInstance,
        autoscaling: {
          minInstances: sonic.minInstances,
          maxInstances: sonic.maxInstances,
          targetConcurrentRequestsPerInstance: sonic.targetConcurrentRequestsPerInstance,
        },
      },
      generationTime: DEFAULT_GENERATION_TIME,
    },
    lambda: {
      account: SERVICE_QUOTAS.lambda.concurrentExecutions.value,
      reserved: {
        synthesize: gates.synthesize,
        synthesizePrompt: gates.synthesizePrompt,
        compactLineageIndex: LINEAGE_COMPACTION_RESERVED,
      },
    },
    startExecution: {
      bucket: SERVICE_QUOTAS.stepFunctions.startExecutionBucket.value,
      refillPerSecond: SERVICE_QUOTAS.stepFunctions.startExecutionRefill.value,
    },
  };
}
