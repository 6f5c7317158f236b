import type { JobData } from "../job-data";
import { jobUsage } from "./job-usage";
import { instanceHourPrice, type ListPrice, PRICES, type PriceTable } from "./price-table";

/** The Sonic endpoint a stage deploys, as its stage file says. */
export interface DeployedEndpoint {
  instanceType: string;
  /** Instances kept up at all times (the scaling policy's minimum). */
  minInstances: number;
}

/** What the always-on Sonic endpoint costs a day before any voicemail. */
export interface EndpointFloor {
  instanceType: string;
  minInstances: number;
  /** `minInstances` x 24. */
  instanceHoursPerDay: number;
  /** US dollars a day; `undefined` when the instance type has no confirmed price. */
  usdPerDay: number | undefined;
}

/** How to price what the jobs used. */
export interface CostOptions {
  /** The list prices; {@link PRICES} by default. */
  prices?: PriceTable;
  /**
   * The Sonic endpoint the stage deploys (its stage file's `sonic`). Without one (a stage on an
   * existing endpoint), SageMaker time is counted but not priced and no floor is given.
   */
  endpoint?: DeployedEndpoint;
  /** Synthesis streams one instance serves at once; 1 by default. */
  streamsPerInstance?: number;
  /**
   * Share of the always-on endpoint's time spent streaming; 1 (never idle) by default. At 0.25 each
   * voicemail also carries the idle time around it: four times its stream seconds.
   */
  endpointUtilization?: number;
  /** Memory an Express execution uses, billed in 64 MB chunks; 64 MB by default. */
  expressMemoryMb?: number;
}

/** One priced item, per 1,000 voicemails. */
export interface CostLine {
  /** The stage that incurs it (`Transcribe`, ...), or `Workflow` / `Events`. */
  stage: string;
  item: string;
  /** How much of `unit` 1,000 voicemails use. */
  quantity: number;
  unit: string;
  /** US dollars per 1,000 voicemails; `undefined` when the price could not be confirmed. */
  usd: number | undefined;
  /** Set on the lines that apply to one workflow type only. */
  workflow?: "standard" | "express";
}

/** The estimated cost of 1,000 voicemails like the ones measured. */
export interface CostEstimate {
  /** How many jobs the figures average over. */
  jobs: number;
  lines: CostLine[];
  /** US dollars per 1,000 voicemails, summing the priced lines. */
  totals: { standard: number; express: number };
  /** Lines left out of the totals because their price could not be confirmed. */
  unpriced: string[];
  /** The deployed endpoint's cost a day before any voicemail, when the stage deploys one. */
  endpointFloor?: EndpointFloor;
  /** How the figures were derived, in words, for the printed report. */
  assumptions: string[];
  prices: { readOn: string; region: string };
}

/**
 * Estimates the AWS (and Cartesia) cost per 1,000 voicemails from jobs' recorded usage (see
 * {@link jobUsage} for what is counted and how), priced with one list-price table. Every figure is
 * the jobs' mean times 1,000. The Sonic endpoint is always on: each voicemail is charged the
 * seconds its stream held the endpoint, divided by the streams one instance serves at once and by
 * the endpoint's utilization (so idle time is shared out over the voicemails too). With the
 * stage's deployed endpoint, the estimate also gives its floor: `minInstances` x 24 instance-hours
 * a day, in dollars only where the instance type's price is confirmed.
 *
 * @example
 * const { jobs } = await readJobs(store, { all: true });
 * const estimate = estimateCost(jobs, {
 *   endpoint: { instanceType: "ml.g6e.xlarge", minInstances: 2 },
 *   endpointUtilization: 0.5,
 * });
 * estimate.totals.express; // US dollars per 1,000 voicemails
 */
export function estimateCost(jobs: JobData[], options: CostOptions = {}): CostEstimate {
  if (jobs.length === 0) throw new RangeError("a cost estimate needs at least one job");
  const prices = options.prices ?? PRICES;
  const endpoint = options.endpoint;
  const instance = endpoint?.instanceType ?? "(instance type not in the stage file)";
  const hourPrice: ListPrice = (endpoint && instanceHourPrice(endpoint.instanceType, prices)) ?? {
    usd: undefined,
    unit: "instance-hour",
    sources: [],
    note: "No price for this instance type in the price table.",
  };
  const streamsPerInstance = positive("streamsPerInstance", options.streamsPerInstance ?? 1);
  const utilization = positive("endpointUtilization", options.endpointUtilization ?? 1);
  if (utilization > 1) throw new RangeError("endpointUtilization must be at most 1");
  const expressMemoryMb = positive("expressMemoryMb", options.expressMemoryMb ?? 64);
  const per1000 = 1000 / jobs.length;
  const usages = jobs.map(jobUsage);

  const lines: CostLine[] = [];
  const add = (stage: string, item: string, quantity: number, price: ListPrice, unit = price.unit) => {
    if (quantity === 0) return undefined;
    const line: CostLine = {
      stage,
      item,
      quantity,
      unit,
      usd: price.usd === undefined ? undefined : quantity * price.usd,
    };
    lines.push(line);
    return line;
  };

  const stageNames = [...new Set(usages.flatMap((usage) => usage.stages.map((stage) => stage.stage)))];
  for (const name of stageNames) {
    const stages = usages.flatMap((usage) => usage.stages.filter((stage) => stage.stage === name));
    const sum = (pick: (stage: (typeof stages)[number]) => number) =>
      stages.reduce((total, stage) => total + pick(stage), 0) * per1000;
    const memory = stages[0]?.memoryMb;
    add(
      name,
      "Lambda requests",
      sum((stage) => stage.invocations),
      prices.lambdaRequest,
    );
    add(
      name,
      `Lambda duration (${memory} MB)`,
      sum((stage) => stage.gbSeconds),
      prices.lambdaGbSecond,
    );
    add(
      name,
      "S3 PUT/LIST requests",
      sum((stage) => stage.s3Writes),
      prices.s3WriteRequest,
    );
    add(
      name,
      "S3 GET/HEAD requests",
      sum((stage) => stage.s3Reads),
      prices.s3ReadRequest,
    );
  }
  const total = (pick: (usage: (typeof usages)[number]) => number) =>
    usages.reduce((sum, usage) => sum + pick(usage), 0) * per1000;

  const instanceSeconds = total((usage) => usage.sonicStreamSeconds) / streamsPerInstance / utilization;
  add(
    "Synthesize",
    `SageMaker ${instance} (Sonic endpoint)`,
    instanceSeconds,
    perSecond(hourPrice),
    "instance-second",
  );
  add(
    "Synthesize",
    "Cartesia TTS",
    total((usage) => usage.cartesiaTtsCharacters),
    prices.cartesiaCredit,
  );
  add("Transcribe", "Cartesia STT", total((usage) => usage.cartesiaSttSeconds) / 2, prices.cartesiaCredit);
  add(
    "Transcribe",
    "Amazon Transcribe (batch, at least 15 s a job)",
    total((usage) => usage.transcribeBilledSeconds),
    prices.transcribeAudioSecond,
  );

  const standard = add(
    "Workflow",
    "Step Functions Standard transitions",
    total((usage) => usage.stateTransitions),
    prices.standardTransition,
  );
  if (standard) standard.workflow = "standard";
  const expressRequests = add(
    "Workflow",
    "Step Functions Express requests",
    jobs.length * per1000,
    prices.expressRequest,
  );
  if (expressRequests) expressRequests.workflow = "express";
  const expressGb = (Math.ceil(expressMemoryMb / 64) * 64) / 1024;
  const expressDuration = add(
    "Workflow",
    `Step Functions Express duration (${expressGb * 1024} MB)`,
    total((usage) => (Math.ceil(Math.round(usage.executionSeconds * 1000) / 100) / 10) * expressGb),
    prices.expressGbSecond,
  );
  if (expressDuration) expressDuration.workflow = "express";
  add(
    "Events",
    "EventBridge custom events (outcomes)",
    total((usage) => usage.customEvents),
    prices.eventBridgeCustomEvent,
  );

  const sumFor = (workflow: "standard" | "express") =>
    lines
      .filter((line) => line.workflow === undefined || line.workflow === workflow)
      .reduce((sum, line) => sum + (line.usd ?? 0), 0);
  return {
    jobs: jobs.length,
    lines,
    totals: { standard: sumFor("standard"), express: sumFor("express") },
    unpriced: lines.filter((line) => line.usd === undefined).map((line) => `${line.stage}: ${line.item}`),
    assumptions: [
      `Lambda: each activity record's span at the function's memory (x86); for a Transcribe job, its start and read steps' own times; cold starts not included, so a lower bound.`,
      `Sonic endpoint: ${instance}, always on, charged by stream seconds / ${streamsPerInstance} stream(s) per instance / ${utilization} utilization.`,
      `Express: billed duration rounded up to 100 ms at ${expressGb * 1024} MB.`,
      `Durations are as recorded: a local run's (pocketsphinx; flite behind the local endpoint, standing in for Sonic) are this machine's, not AWS's.`,
      `Not counted: S3 storage and transfer, CloudWatch logs, free tiers, savings plans, Bedrock.`,
    ],
    prices: { readOn: prices.readOn, region: prices.region },
    ...(endpoint === undefined ? {} : { endpointFloor: endpointFloor(endpoint, hourPrice) }),
  };
}

/** The endpoint's `minInstances` kept up all day, priced when the hourly price is confirmed. */
function endpointFloor(endpoint: DeployedEndpoint, hourPrice: ListPrice): EndpointFloor {
  const instanceHoursPerDay = endpoint.minInstances * 24;
  return {
    instanceType: endpoint.instanceType,
    minInstances: endpoint.minInstances,
    instanceHoursPerDay,
    usdPerDay: hourPrice.usd === undefined ? undefined : instanceHoursPerDay * hourPrice.usd,
  };
}

/** An hourly price as a per-second one. */
function perSecond(price: ListPrice): ListPrice {
  return { ...price, usd: price.usd === undefined ? undefined : price.usd / 3600, unit: "instance-second" };
}

function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a positive number`);
  return value;
}
