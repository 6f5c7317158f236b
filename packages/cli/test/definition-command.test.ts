import { describe, expect, it } from "vitest";
import { definitionCommand } from "../src/commands/definition";
import { UsageError } from "../src/usage-error";

describe("voxtrail definition", () => {
  it("prints the voicemail batch definition around the given voicemail state machine", () => {
    const arn = "arn:aws:states:eu-west-1:123456789012:stateMachine:voxtrail-dev-voicemail";
    const definition = JSON.parse(definitionCommand(["batch"], { "state-machine": arn, concurrency: "5" }));
    expect(definition.States.RunVoicemails.MaxConcurrency).toBe(5);
    expect(JSON.stringify(definition)).toContain(`"StateMachineArn":"${arn}"`);
  });

  it("names the workflows it knows when asked for another", () => {
    expect(() => definitionCommand(["nope"], {})).toThrow(UsageError);
    expect(() => definitionCommand(["batch"], { concurrency: "0" })).toThrow(/--concurrency/);
  });
});
