import {
  CreateStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { describe, expect, it } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import { StepFunctionsLiveness } from "../src/step-functions-liveness";

describe("StepFunctionsLiveness (against moto_server's Step Functions API)", () => {
  const client = new SFNClient(motoClientConfig());
  const liveness = new StepFunctionsLiveness(client);

  it("says an execution runs until it is stopped, and that an unknown one does not", async () => {
    const { stateMachineArn } = await client.send(
      new CreateStateMachineCommand({
        name: `liveness-${Date.now()}`,
        roleArn: "arn:aws:iam::123456789012:role/voxtrail-test",
        definition: JSON.stringify({ StartAt: "Wait", States: { Wait: { Type: "Pass", End: true } } }),
      }),
    );
    const { executionArn } = await client.send(new StartExecutionCommand({ stateMachineArn, input: "{}" }));
    expect(await liveness.isRunning(executionArn as string)).toBe(true);
    await client.send(new StopExecutionCommand({ executionArn }));
    expect(await liveness.isRunning(executionArn as string)).toBe(false);
    expect(
      await liveness.isRunning(`${stateMachineArn?.replace(":stateMachine:", ":execution:")}:nope`),
    ).toBe(false);
  });
});
