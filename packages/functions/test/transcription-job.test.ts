import { describe, expect, it } from "vitest";
import { transcriptionJobHandler } from "../src/handlers/transcription-job";
import { createStageHandlers } from "../src/workflow-handlers";
import { context, testDependencies } from "./stage-dependencies";

const service = {
  processor: {
    provider: "amazon-transcribe",
    model: "transcribe-batch",
    version: "2017-10-26",
    boundary: { kind: "aws-account" as const, service: "transcribe", region: "eu-west-1" },
  },
  jobName: () => {
    throw new Error("not expected: the step is refused before the stage runs");
  },
  start: async () => "started" as const,
  transcriptOf: () => {
    throw new Error("not expected");
  },
};

describe("the Transcribe function with a transcription service", () => {
  it("refuses an input that names no step, before touching the service", async () => {
    const { deps } = await testDependencies();
    const handler = transcriptionJobHandler({ ...deps, transcriptionService: service });
    for (const input of [{ jobId: "vm-1" }, { step: "wait", job: {} }, { step: "constructor" }, null]) {
      await expect(handler(input, context)).rejects.toMatchObject({
        name: "InvalidInput",
        message: expect.stringContaining('"start" or "read"'),
      });
    }
  });

  it("is what createStageHandlers gives the transcribe function when the service is configured", async () => {
    const { deps } = await testDependencies();
    const plain = createStageHandlers(deps);
    const withService = createStageHandlers({ ...deps, transcriptionService: service });
    await expect(withService.transcribe({ jobId: "vm-1" }, context)).rejects.toMatchObject({
      name: "InvalidInput",
    });
    // Without the service, the same input is the in-function stage's to refuse, by its schema.
    await expect(plain.transcribe({ jobId: "vm-1" }, context)).rejects.toMatchObject({
      message: expect.not.stringContaining('"start" or "read"'),
    });
  });
});
