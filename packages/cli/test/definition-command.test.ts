import { describe, expect, it } from "vitest";
import { definitionCommand } from "../src/commands/definition";
import { UsageError } from "../src/usage-error";

describe("voxtrail definition", () => {
  it("prints the voicemail batch definition around the given voicemail state machine", () => {
    const arn = "arn:aws:states:eu-west-1:123456789012:stateMachine:voxtrail-dev-voicemail";
    const definition = JSON.parse(definitionCommand(["batch"], { "state-machine": arn, concurrency: "5" }));
    expect(definition.States.RunVoicemails.MaxConcurrency).toBe(5);
    expect(JSON.stringify(definition)).toContain(`"StateMachineArn":"${arn}"`);
    expect(definition.States.OpenBatch.Resource).toBe(
      "arn:aws:lambda:us-east-1:000000000000:function:voxtrail-local-openBatch",
    );
    const prefixed = JSON.parse(definitionCommand(["batch"], { "arn-prefix": "arn:fn:" }));
    expect(prefixed.States.OpenBatch.Resource).toBe("arn:fn:openBatch");
  });

  it("prints the voicemail definition with a wait for the Transcribe job's event for amazon-transcribe, and refuses an unknown transcriber", () => {
    const plain = JSON.parse(definitionCommand(["voicemail"], {}));
    const job = JSON.parse(definitionCommand(["voicemail"], { transcriber: "amazon-transcribe" }));
    expect(plain.States.AwaitTranscription).toBeUndefined();
    expect(job.States.AwaitTranscription.Resource).toBe("arn:aws:states:::lambda:invoke.waitForTaskToken");
    expect(() => definitionCommand(["voicemail"], { transcriber: "whisper" })).toThrow(
      /--transcriber must be one of/,
    );
  });

  it("names the workflows it knows when asked for another", () => {
    expect(() => definitionCommand(["nope"], {})).toThrow(UsageError);
    expect(() => definitionCommand(["batch"], { concurrency: "0" })).toThrow(/--concurrency/);
  });
});
