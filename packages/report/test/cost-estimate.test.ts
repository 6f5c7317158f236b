import type { ActivityRecord } from "@voxtrail/core";
import { buildVoicemailDefinition, STAGE_FUNCTIONS, type StageFunction } from "@voxtrail/workflow";
import { describe, expect, test } from "vitest";
import { SUCCEEDED_VOICEMAIL_STATES } from "../../../test/support/voicemail-state-path";
import { estimateCost } from "../src/cost/cost-estimate";
import { jobUsage } from "../src/cost/job-usage";
import { PRICES, type PriceTable } from "../src/cost/price-table";
import { renderCostText } from "../src/cost/render-cost";
import { statePath } from "../src/cost/state-path";
import type { JobData } from "../src/job-data";
import { usualJob } from "./synthetic-jobs";

/** Round prices, so every figure below can be checked by hand. */
const price = (usd: number | undefined, unit = "unit") => ({ usd, unit, sources: [], note: "" });
const ROUND_PRICES: PriceTable = {
  readOn: "2026-11-30",
  region: "us-east-1",
  lambdaRequest: price(0.0000002),
  lambdaGbSecond: price(0.00001),
  standardTransition: price(0.000025),
  expressRequest: price(0.000001),
  expressGbSecond: price(0.00001),
  sageMakerInstanceHour: { "ml.g5.xlarge": price(3.6), "ml.g6e.xlarge": price(undefined) },
  s3WriteRequest: price(0.000005),
  s3ReadRequest: price(0.0000004),
  eventBridgeCustomEvent: price(0.000001),
  cartesiaCredit: price(0.00004),
  transcribeAudioSecond: price(0.0004),
};

/**
 * A successful job: Ingest 30 ms, Transcribe 1000 ms, Reason 20 ms, Synthesize 400 ms (of which
 * the stream took 390 ms), Finalize 15 ms, back to back from the execution's start.
 */
function measuredJob(index = 0, providers: { synthesize?: string; transcribe?: string } = {}): JobData {
  const job = usualJob(index, 1000);
  const records = job.records.map((record): ActivityRecord => {
    if (record.stage === "Synthesize") {
      return {
        ...record,
        processors: [
          {
            ...(record.processors[0] as ActivityRecord["processors"][number]),
            provider: providers.synthesize ?? "local-sonic-endpoint",
          },
        ],
        timings: [
          ...record.timings,
          { name: "synthesize.total", startEvent: "request.sent", endEvent: "stream.done", ms: 390 },
        ],
      };
    }
    if (record.stage === "Transcribe" && providers.transcribe) {
      return {
        ...record,
        processors: [
          {
            ...(record.processors[0] as ActivityRecord["processors"][number]),
            provider: providers.transcribe,
          },
        ],
      };
    }
    return record;
  });
  return { ...job, records };
}

describe("statePath", () => {
  const definition = buildVoicemailDefinition({
    functionArns: Object.fromEntries(
      STAGE_FUNCTIONS.map((fn) => [fn, `arn:aws:lambda:us-east-1:1:function:${fn}`]),
    ) as Record<StageFunction, string>,
  });

  test("a successful job enters the five stage states and the duplicate check", () => {
    expect(statePath(definition)).toEqual([...SUCCEEDED_VOICEMAIL_STATES]);
  });

  test("a job failing in Reason goes on to its recorder and Fail state", () => {
    expect(statePath(definition, "Reason")).toEqual([
      "Ingest",
      "IsDuplicate",
      "Transcribe",
      "Reason",
      "RecordReasonFailure",
      "ReasonFailed",
    ]);
  });
});

describe("jobUsage", () => {
  test("a transcription job bills its two steps' Lambda time, its audio (at least 15 s) and four transitions a poll", () => {
    const job = measuredJob();
    const records = job.records.map((record): ActivityRecord => {
      if (record.stage !== "Transcribe") return record;
      return {
        ...record,
        // The record spans the wait for the service (1 s here); the steps ran 40 + 60 ms.
        processors: [
          {
            ...(record.processors[0] as ActivityRecord["processors"][number]),
            provider: "amazon-transcribe",
          },
        ],
        conditions: { ...(record.conditions as NonNullable<ActivityRecord["conditions"]>), audioMs: 9000 },
        timings: [
          {
            name: "transcribe.startStep",
            startEvent: "handler.start",
            endEvent: "transcription.requested",
            ms: 40,
          },
          {
            name: "transcribe.readStep",
            startEvent: "handler.start",
            endEvent: "transcript.durable",
            ms: 60,
          },
        ],
        serviceJob: {
          service: "amazon-transcribe",
          name: "voxtrail-vm-1-run-1",
          input: "s3://b/a",
          output: "s3://b/o",
          polls: 3,
        },
      };
    });
    const usage = jobUsage({ ...job, records });
    const transcribe = usage.stages.find((stage) => stage.stage === "Transcribe");
    expect(transcribe).toMatchObject({ invocations: 2 });
    expect(transcribe?.gbSeconds).toBeCloseTo(0.1, 10);
    expect(usage.transcribeBilledSeconds).toBe(15);
    expect(usage.stateTransitions).toBe(6 + 4 * 3);
    const estimate = estimateCost([{ ...job, records }], { prices: ROUND_PRICES });
    expect(estimate.lines.find((line) => line.item.startsWith("Amazon Transcribe"))).toMatchObject({
      stage: "Transcribe",
      quantity: 15_000,
      usd: 6,
    });
  });

  test("counts Lambda GB-seconds at each function's memory, S3 requests and transitions", () => {
    const usage = jobUsage(measuredJob());
    const byStage = Object.fromEntries(usage.stages.map((stage) => [stage.stage, stage]));
    // 30 ms at 1024 MB; 1 s at 1024 MB; 20 ms at 512 MB; 400 ms at 1024 MB; 15 ms at 256 MB.
    expect(byStage.Ingest?.gbSeconds).toBeCloseTo(0.03, 10);
    expect(byStage.Transcribe?.gbSeconds).toBeCloseTo(1, 10);
    expect(byStage.Reason?.gbSeconds).toBeCloseTo(0.01, 10);
    expect(byStage.Synthesize?.gbSeconds).toBeCloseTo(0.4, 10);
    expect(byStage.Finalize?.gbSeconds).toBeCloseTo(0.00375, 10);
    // Writes: LIST + record PUT per attempt, a PUT per output; the upload and the claim's LIST
    // and PUT under Ingest; Finalize also LISTs and PUTs the summary. Reads: HEAD + GET in
    // Ingest, one input elsewhere, and the five records Finalize copies into the summary.
    expect(usage.stages.map((stage) => [stage.stage, stage.s3Writes, stage.s3Reads])).toEqual([
      ["Ingest", 6, 2],
      ["Transcribe", 3, 1],
      ["Reason", 4, 1],
      ["Synthesize", 3, 1],
      ["Finalize", 5, 5],
    ]);
    expect(usage.stateTransitions).toBe(6);
    expect(usage.executionSeconds).toBeCloseTo(1.465, 10);
    expect(usage.sonicStreamSeconds).toBeCloseTo(0.39, 10);
    expect(usage.customEvents).toBe(1);
  });

  test("a retry is one more transition and one more invocation, and a long streamed reply goes up in parts", () => {
    const job = measuredJob();
    const transcribe = job.records.find((record) => record.stage === "Transcribe") as ActivityRecord;
    const synthesize = job.records.find((record) => record.stage === "Synthesize") as ActivityRecord;
    const bigReply = {
      ...(synthesize.outputs[0] as ActivityRecord["outputs"][number]),
      bytes: 12 * 1024 * 1024,
    };
    const records = job.records.flatMap((record) => {
      if (record === transcribe)
        return [
          { ...record, outcome: "failed" as const },
          { ...record, attempt: 2 },
        ];
      if (record === synthesize) return [{ ...record, outputs: [bigReply] }];
      return [record];
    });
    const usage = jobUsage({ ...job, records });
    const byStage = Object.fromEntries(usage.stages.map((stage) => [stage.stage, stage]));
    expect(usage.stateTransitions).toBe(7);
    expect(byStage.Transcribe?.invocations).toBe(2);
    expect(byStage.Transcribe?.gbSeconds).toBeCloseTo(2, 10);
    // 12 MiB in 5 MiB parts: 3 UploadParts + create + complete, besides the LIST and the record.
    expect(byStage.Synthesize?.s3Writes).toBe(2 + 5);
  });
});

/** A stage's endpoint on the instance type ROUND_PRICES prices at $3.60 an hour. */
const G5_ENDPOINT = { instanceType: "ml.g5.xlarge", minInstances: 2 };

describe("estimateCost", () => {
  test("prices 1,000 voicemails like the measured one, for Standard and Express", () => {
    const estimate = estimateCost([measuredJob()], { prices: ROUND_PRICES, endpoint: G5_ENDPOINT });
    const usd = (stage: string, item: string) =>
      estimate.lines.find((line) => line.stage === stage && line.item.startsWith(item))?.usd;
    expect(usd("Transcribe", "Lambda duration")).toBeCloseTo(1000 * 0.00001, 10); // 1000 GB-s
    expect(usd("Synthesize", "SageMaker ml.g5.xlarge")).toBeCloseTo(390 * 0.001, 10); // 390 s at $3.60/h
    expect(usd("Workflow", "Step Functions Standard")).toBeCloseTo(6000 * 0.000025, 10);
    // 1.465 s rounds up to 1.5 s, at 64 MB = 0.0625 GB: 93.75 GB-s.
    expect(usd("Workflow", "Step Functions Express duration")).toBeCloseTo(93.75 * 0.00001, 10);
    // Shared by both: 5,000 requests $0.001; 1,443.75 GB-s $0.0144375; 21,000 writes $0.105;
    // 10,000 reads $0.004; SageMaker $0.39; 1,000 events $0.001: $0.5154375.
    expect(estimate.totals.standard).toBeCloseTo(0.5154375 + 0.15, 10);
    expect(estimate.totals.express).toBeCloseTo(0.5154375 + 0.001 + 0.0009375, 10);
    expect(estimate.unpriced).toEqual([]);
  });

  test("an endpoint idle half the time and serving two streams at once charges the same", () => {
    const estimate = estimateCost([measuredJob()], {
      prices: ROUND_PRICES,
      endpoint: G5_ENDPOINT,
      endpointUtilization: 0.5,
      streamsPerInstance: 2,
    });
    const sageMaker = estimate.lines.find((line) => line.item.startsWith("SageMaker"));
    expect(sageMaker?.quantity).toBeCloseTo(390, 10);
    const idle = estimateCost([measuredJob()], {
      prices: ROUND_PRICES,
      endpoint: G5_ENDPOINT,
      endpointUtilization: 0.25,
    });
    expect(idle.lines.find((line) => line.item.startsWith("SageMaker"))?.usd).toBeCloseTo(1.56, 10);
  });

  test("Cartesia's API is priced in credits: a character of reply text, two seconds of audio", () => {
    const jobs = [0, 1].map((index) =>
      measuredJob(index, { synthesize: "cartesia-api", transcribe: "cartesia-ink" }),
    );
    const estimate = estimateCost(jobs, { prices: ROUND_PRICES });
    const line = (item: string) => estimate.lines.find((candidate) => candidate.item === item);
    // 120 characters of reply text per job; 3 s of source audio per job.
    expect(line("Cartesia TTS")?.quantity).toBeCloseTo(120_000, 10);
    expect(line("Cartesia TTS")?.usd).toBeCloseTo(4.8, 10);
    expect(line("Cartesia STT")?.quantity).toBeCloseTo(1500, 10);
    expect(line("Cartesia STT")?.usd).toBeCloseTo(0.06, 10);
    expect(estimate.lines.some((candidate) => candidate.item.startsWith("SageMaker"))).toBe(false);
  });

  test("a price that could not be confirmed is shown as such and left out of the totals", () => {
    const estimate = estimateCost([measuredJob()], {
      endpoint: { instanceType: "ml.g6e.xlarge", minInstances: 2 },
    });
    expect(PRICES.sageMakerInstanceHour["ml.g6e.xlarge"].usd).toBeUndefined();
    expect(estimate.unpriced).toEqual(["Synthesize: SageMaker ml.g6e.xlarge (Sonic endpoint)"]);
    expect(estimate.endpointFloor).toEqual({
      instanceType: "ml.g6e.xlarge",
      minInstances: 2,
      instanceHoursPerDay: 48,
      usdPerDay: undefined,
    });
    const text = renderCostText(estimate);
    expect(text).toContain("not priced");
    expect(text).toContain("Total, Express workflow");
    expect(text).toContain(
      "Sonic endpoint floor: 2 x ml.g6e.xlarge x 24 h = 48 instance-hours a day (no confirmed price)",
    );
    expect(estimate.totals.standard).toBeGreaterThan(0);
  });

  test("the endpoint's floor a day is priced where the instance type's price is confirmed", () => {
    const estimate = estimateCost([measuredJob()], { prices: ROUND_PRICES, endpoint: G5_ENDPOINT });
    expect(estimate.endpointFloor?.instanceHoursPerDay).toBe(48);
    expect(estimate.endpointFloor?.usdPerDay).toBeCloseTo(48 * 3.6, 10);
    expect(renderCostText(estimate)).toContain("= 48 instance-hours a day ($172.80 a day)");
  });

  test("without the stage's endpoint, SageMaker time is counted, not priced, and no floor is given", () => {
    const estimate = estimateCost([measuredJob()], { prices: ROUND_PRICES });
    expect(estimate.unpriced).toEqual([
      "Synthesize: SageMaker (instance type not in the stage file) (Sonic endpoint)",
    ]);
    expect(estimate.endpointFloor).toBeUndefined();
  });

  test("refuses what cannot be estimated", () => {
    expect(() => estimateCost([])).toThrow(RangeError);
    expect(() => estimateCost([measuredJob()], { endpointUtilization: 1.5 })).toThrow(RangeError);
  });
});
