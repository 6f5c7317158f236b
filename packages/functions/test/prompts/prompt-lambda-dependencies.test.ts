import { readFileSync } from "node:fs";
import { cloudSynthesizer } from "@voxtrail/providers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { lambdaDependencies } from "../../src/lambda/lambda-dependencies";

/** A prompts function's dependencies, as the SynthesizePrompt entry point builds them. */
const promptLambdaDependencies = (env: NodeJS.ProcessEnv) =>
  lambdaDependencies(env, { synthesizer: cloudSynthesizer });

const policy = readFileSync(new URL("../../../../config/boundary-policy/dev.json", import.meta.url), "utf8");

/** A prompts function's environment: no transcriber, reasoner, records or event bus configured. */
const environment: NodeJS.ProcessEnv = {
  AWS_REGION: "us-east-1",
  VOXTRAIL_STAGE: "dev",
  VOXTRAIL_BUCKET: "voxtrail-dev-bucket",
  VOXTRAIL_BOUNDARY_POLICY: policy,
  VOXTRAIL_SYNTHESIZER: "sonic-sagemaker",
  VOXTRAIL_SONIC_ENDPOINT: "sonic-dev",
  VOXTRAIL_VOICE_ID: "bf0a246a-8642-498a-9950-80c35e9276b5",
};

describe("promptLambdaDependencies", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("builds a prompts function's dependencies from the synthesizer's settings alone", async () => {
    // The SDK clients read the region from the process environment, as in Lambda.
    vi.stubEnv("AWS_REGION", "us-east-1");
    const deps = await promptLambdaDependencies(environment);
    expect(deps.store.bucket).toBe("voxtrail-dev-bucket");
    expect(deps.synthesizer.processor.boundary).toMatchObject({ kind: "aws-account", service: "sagemaker" });
    expect(deps.compute).toEqual({ kind: "aws-account", service: "lambda", region: "us-east-1" });
    expect(deps.boundaryPolicy.environment).toBe("dev");
  });

  it("refuses the local synthesizer, which cannot run in Lambda, naming the variable to set", async () => {
    await expect(promptLambdaDependencies({ ...environment, VOXTRAIL_SYNTHESIZER: "local" })).rejects.toThrow(
      /VOXTRAIL_SYNTHESIZER/,
    );
  });
});
