import { Logger } from "@aws-lambda-powertools/logger";
import { ActivityRecord, LOCAL_BOUNDARY } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import type { StageDependencies } from "../src/dependencies";
import { defineStage } from "../src/kernel/stage-definition";
import { stageHandler } from "../src/kernel/stage-handler";
import { stdoutOf, testMetrics } from "./emf-output";
import { context, testDependencies } from "./stage-dependencies";

describe("stage metrics as CloudWatch EMF", () => {
  test("an attempt's timings and conditions go out with low-cardinality dimensions, and into its record", async () => {
    const metrics = testMetrics();
    const { deps } = await testDependencies({ metrics, jobsInFlight: () => 3 });
    const synthesize = defineStage<StageDependencies>()({
      name: "Synthesize",
      input: z.object({ jobId: z.string() }),
      flows: () => [],
      open: ({ jobId }) => ({ jobId, inputs: [], carry: undefined }),
      run: async (_input, { activity }) => {
        activity.processors.push({
          provider: "sonic-sagemaker",
          model: "sonic",
          version: "3.6",
          boundary: LOCAL_BOUNDARY,
        });
        activity.timings.push({
          name: "synthesize.ttfb",
          startEvent: "request.sent",
          endEvent: "audio.firstChunk",
          ms: 87.5,
        });
        activity.measures.activeStreams = 2;
        activity.measures.delivery = {
          chunks: 3,
          gapsMs: [4, 400],
          stallThresholdMs: 250,
          stalls: [{ afterChunk: 2, ms: 400 }],
          totalMs: 900,
          audioMs: 1800,
          rtf: 0.5,
        };
        return "ok";
      },
    });
    const handler = stageHandler(synthesize, { ...deps, logger: new Logger({ logLevel: "SILENT" }) });

    const lines = await stdoutOf(() => handler({ jobId: "job-1" }, context));
    const emf = lines.map((line) => JSON.parse(line)).find((entry) => entry._aws);
    const directive = emf._aws.CloudWatchMetrics[0];
    expect(directive.Namespace).toBe("voxtrail");
    expect(directive.Dimensions[0].sort()).toEqual(["environment", "provider", "service", "stage"]);
    expect(emf).toMatchObject({
      stage: "Synthesize",
      provider: "sonic-sagemaker",
      environment: "test",
      jobId: "job-1", // metadata: in the log line, not a dimension
      "synthesize.ttfb": 87.5,
      "synthesize.activeStreams": 2,
      "synthesize.stalls": 1,
      "synthesize.rtf": 0.5,
    });
    expect(directive.Metrics.find((m: { Name: string }) => m.Name === "synthesize.ttfb")?.Unit).toBe(
      "Milliseconds",
    );

    const record = ActivityRecord.parse(
      JSON.parse((await deps.store.getBytes(keys.lineage("job-1", "Synthesize", 1))).toString("utf8")),
    );
    expect(record.conditions).toEqual({
      provider: "sonic-sagemaker",
      model: "sonic",
      version: "3.6",
      payloadBytes: 0,
      jobsInFlight: 3,
      activeStreams: 2,
    });
    expect(record.delivery?.stalls).toEqual([{ afterChunk: 2, ms: 400 }]);
  });

  test("without a Metrics instance (the local runtime) nothing reaches stdout", async () => {
    const { deps } = await testDependencies();
    const reason = defineStage<StageDependencies>()({
      name: "Reason",
      input: z.object({}),
      flows: () => [],
      open: () => ({ jobId: "job-2", inputs: [], carry: undefined }),
      run: async (_input, { activity }) => {
        activity.timings.push({ name: "reason.duration", startEvent: "a", endEvent: "b", ms: 1 });
      },
    });
    const handler = stageHandler(reason, { ...deps, logger: new Logger({ logLevel: "SILENT" }) });
    expect(await stdoutOf(() => handler({}, context))).toEqual([]);
  });
});
