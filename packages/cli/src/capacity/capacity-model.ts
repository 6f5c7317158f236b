import { SERVICE_QUOTAS, type ServiceQuota } from "@voxtrail/workflow";
import type { CapacityParameters } from "./capacity-parameters";

/** The Sonic endpoint a stage deploys: the instance type and how far it scales. */
export interface EndpointSizing {
  instanceType: string;
  minInstances: number;
  maxInstances: number;
}

/** What the model plans with besides its parameters. */
export interface CapacityInputs {
  sizing: EndpointSizing;
  parameters: CapacityParameters;
  /** The instance type's confirmed hourly price, or `undefined` when none is confirmed. */
  instanceHourUsd: number | undefined;
}

/** A volume to plan for: voicemails arriving every day, or a backlog put in at once. */
export interface Scenario {
  kind: "daily" | "backfill";
  voicemails: number;
}

/** A quota the scenario needs above its default. */
export interface QuotaNeed {
  name: string;
  default: number;
  needed: number;
  unit: string;
}

/** The plan for one scenario. */
export interface CapacityPlan {
  scenario: Scenario;
  /** Sonic instances the scenario's rate needs (at least `minInstances`); the stage runs at most `maxInstances`. */
  sonicInstances: number;
  /** Set when the rate needs more instances than the stage's `maxInstances`. */
  beyondMaxInstances: boolean;
  quotasToRaise: QuotaNeed[];
  /** Seconds to work through the scenario's voicemails at the tightest stage, with default quotas and at most `maxInstances`. */
  drainSeconds: number;
  /** The stage that sets the drain time. */
  tightestStage: string;
  /** Endpoint instance-hours per 1,000 voicemails, the always-on floor included. */
  instanceHoursPer1000: number;
  /** The same in US dollars, or `undefined` when the instance type has no confirmed price. */
  usdPer1000: number | undefined;
}

/** The volumes the command plans for, each as a daily rate and as a backfill. */
export const PLANNED_VOLUMES = [1_000, 10_000, 100_000, 1_000_000] as const;

const DAY_SECONDS = 86_400;
/**
 * `GetTranscriptionJob` calls of one voicemail: the await step's look when its wait begins, and
 * the read step's (the job's event resumes the workflow; a wait that runs out adds a look).
 */
const TRANSCRIBE_GETS_PER_VOICEMAIL = 2;

/** One stage a voicemail passes: what it takes of one quota, and the quota. */
interface StageDemand {
  stage: string;
  quota: ServiceQuota & { value: number };
  /** Calls per voicemail (a rate quota) or seconds held per voicemail (a concurrency quota). */
  perVoicemail: number;
}

/** The stages whose AWS quotas bound the voicemails per second, with what each voicemail takes. */
function stageDemands(inputs: CapacityInputs): StageDemand[] {
  const p = inputs.parameters;
  const jobSeconds = p.averageVoicemailSeconds.value * p.transcribeJobSecondsPerAudioSecond.value;
  const { transcribe, stepFunctions, lambda } = SERVICE_QUOTAS;
  return [
    { stage: "Step Functions starts", quota: stepFunctions.startExecutionRefill, perVoicemail: 1 },
    {
      stage: "Step Functions transitions",
      quota: stepFunctions.stateTransitionRefill,
      perVoicemail: p.stateTransitions.value,
    },
    { stage: "Transcribe starts", quota: transcribe.startTranscriptionJobRate, perVoicemail: 1 },
    {
      stage: "Transcribe looks",
      quota: transcribe.getTranscriptionJobRate,
      perVoicemail: TRANSCRIBE_GETS_PER_VOICEMAIL,
    },
    { stage: "Transcribe jobs", quota: transcribe.concurrentBatchJobs, perVoicemail: jobSeconds },
    { stage: "Lambda", quota: lambda.concurrentExecutions, perVoicemail: p.lambdaSecondsPerVoicemail.value },
  ];
}

/**
 * Plans one scenario. Voicemails arrive at the scenario's rate: a daily volume at its peak (the
 * day's mean x `peakToMeanRate`), a backfill put in at once as fast as Step Functions starts its
 * executions (the StartExecution refill rate). Each stage passes at most `quota / per voicemail`
 * voicemails a second (a rate quota over the calls a voicemail makes, or a concurrency quota over
 * the seconds it holds one); Sonic passes `instances x generations per instance / generation
 * seconds` on the instances the rate needs (never under `minInstances`), capped at the stage's
 * `maxInstances`. The drain time is the voicemails over the slowest stage with AWS's defaults
 * (jobs x job time / concurrency at the tightest stage). The quotas to raise are those the rate
 * needs above their defaults, the Sonic instance quota (0 by default) among them. Endpoint cost
 * counts the instances kept up: for a day `max(minInstances x 24, busy instance-hours)`, for a
 * backfill the instances running for the drain time, per 1,000 voicemails.
 *
 * @example
 * planCapacity({ kind: "daily", voicemails: 10_000 }, inputs).sonicInstances; // 2
 */
export function planCapacity(scenario: Scenario, inputs: CapacityInputs): CapacityPlan {
  if (!(Number.isInteger(scenario.voicemails) && scenario.voicemails > 0)) {
    throw new RangeError("a scenario needs a positive whole number of voicemails");
  }
  const { sizing, parameters: p } = inputs;
  const generation = p.sonicGenerationSeconds.value;
  const perInstance = p.generationsPerInstance.value;
  const demands = stageDemands(inputs);
  const rate =
    scenario.kind === "daily"
      ? (scenario.voicemails / DAY_SECONDS) * p.peakToMeanRate.value
      : SERVICE_QUOTAS.stepFunctions.startExecutionRefill.value;
  const sonicInstances = Math.max(sizing.minInstances, Math.ceil((rate * generation) / perInstance));
  const runningInstances = Math.min(sonicInstances, sizing.maxInstances);
  const stages = [
    ...demands.map((demand) => ({
      stage: demand.stage,
      perSecond: demand.quota.value / demand.perVoicemail,
    })),
    { stage: "Sonic", perSecond: (runningInstances * perInstance) / generation },
  ];
  const tightest = stages.reduce((slowest, stage) => (stage.perSecond < slowest.perSecond ? stage : slowest));
  const drainSeconds = scenario.voicemails / tightest.perSecond;

  const quotasToRaise: QuotaNeed[] = [
    need(SERVICE_QUOTAS.sageMaker.g6eXlargeEndpointInstances, sonicInstances, sizing.instanceType),
    ...demands.map((demand) => need(demand.quota, rate * demand.perVoicemail)),
    ...(scenario.kind === "backfill" ? [openExecutionsNeed(scenario.voicemails, tightest.perSecond)] : []),
  ].filter((quota) => quota.needed > quota.default);

  const instanceHours =
    scenario.kind === "daily"
      ? Math.max(sizing.minInstances * 24, (scenario.voicemails * generation) / perInstance / 3600)
      : (runningInstances * drainSeconds) / 3600;
  const instanceHoursPer1000 = (instanceHours * 1000) / scenario.voicemails;
  return {
    scenario,
    sonicInstances,
    beyondMaxInstances: sonicInstances > sizing.maxInstances,
    quotasToRaise,
    drainSeconds,
    tightestStage: tightest.stage,
    instanceHoursPer1000,
    usdPer1000:
      inputs.instanceHourUsd === undefined ? undefined : instanceHoursPer1000 * inputs.instanceHourUsd,
  };
}

/**
 * The quota at `needed`, rounded up. Given `instanceType`, the quota is the endpoint instance quota
 * named for the stage's type, with ml.g6e.xlarge's default (0, as for the GPU types new accounts see).
 */
function need(quota: ServiceQuota, needed: number, instanceType?: string): QuotaNeed {
  return {
    name: instanceType === undefined ? quota.name : `${instanceType} for endpoint usage`,
    default: quota.value ?? 0,
    needed: Math.ceil(needed),
    unit: quota.unit,
  };
}

/**
 * Executions open at once in a backfill: every voicemail's execution starts at the StartExecution
 * rate, and they close at the drain rate, so the backlog peaks when the last one starts.
 */
function openExecutionsNeed(voicemails: number, drainRate: number): QuotaNeed {
  const startRate = SERVICE_QUOTAS.stepFunctions.startExecutionRefill.value;
  const open = drainRate >= startRate ? drainRate : voicemails * (1 - drainRate / startRate);
  return need(SERVICE_QUOTAS.stepFunctions.openExecutions, open);
}
