import { DescribeExecutionCommand, ListExecutionsCommand, type SFNClient } from "@aws-sdk/client-sfn";
import { describe, expect, it } from "vitest";
import { ExecutionFinder } from "../src/stage/execution-finder";

const STATE_MACHINE = "arn:aws:states:us-east-1:123456789012:stateMachine:voxtrail-dev-voicemail";
const started = new Date("2026-12-06T09:00:00Z");

/** An S3 "Object Created" event for `key`, as S3 writes it (with `reason`: its key form-encoded). */
const s3Event = (key: string) =>
  JSON.stringify({
    source: "aws.s3",
    "detail-type": "Object Created",
    time: started.toISOString(),
    detail: { bucket: { name: "b" }, object: { key, "version-id": "v1" }, reason: "PutObject" },
  });

/** Step Functions with one execution per input, newest first. */
function stepFunctions(inputs: string[]): SFNClient {
  const arn = (index: number) => `${STATE_MACHINE.replace(":stateMachine:", ":execution:")}:e${index}`;
  return {
    send: async (command: unknown) => {
      if (command instanceof ListExecutionsCommand) {
        return { executions: inputs.map((_, index) => ({ executionArn: arn(index), startDate: started })) };
      }
      if (command instanceof DescribeExecutionCommand) {
        return { input: inputs[Number(command.input.executionArn?.split(":e").at(-1))] };
      }
      throw new Error("not a call the finder makes");
    },
  } as unknown as SFNClient;
}

describe("ExecutionFinder", () => {
  it("finds an upload's execution by its decoded key, passing over another's event it cannot decode", async () => {
    const finder = new ExecutionFinder(
      stepFunctions([
        s3Event("incoming/voicemail/100%broken.wav"),
        s3Event("incoming/voicemail/a+b%2Bc.wav"),
        "not json",
      ]),
      STATE_MACHINE,
      new Date(started.getTime() - 60_000),
    );
    await finder.refresh();
    expect(
      finder.executionsFor({ bucket: "b", key: "incoming/voicemail/a b+c.wav", versionId: "v1" }),
    ).toEqual([
      {
        executionArn: expect.stringMatching(/:e1$/),
        startDate: started,
        source: expect.objectContaining({ key: "incoming/voicemail/a b+c.wav" }),
      },
    ]);
  });
});
