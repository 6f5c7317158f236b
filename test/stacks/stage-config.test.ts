import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import { selectionFromEnvironment } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import {
  loadStageConfig,
  promptsMaxConcurrency,
  type StageConfig,
  selectionEnvironment,
  stageSelection,
  synthesisGates,
  transcribeJobPrefix,
} from "../../stacks/stage-config";
import {
  configEnvironment,
  PRODUCTION_ENV,
  repositoryConfig,
  subscribedProductionConfig,
  TEST_MODEL_PACKAGE_ARN,
} from "./stage-configs";

const root = resolve(import.meta.dirname, "../..");
const load = (stage: string, config?: unknown) =>
  loadStageConfig(stage, root, config === undefined ? {} : configEnvironment(config));

/** The selection stage `stage`'s functions get from `config`, in account 123456789012. */
function selectionOf(config: StageConfig, stage: string) {
  return stageSelection(config, {
    app: "voxtrail",
    stage,
    bucket: "voicemail-bucket",
    scope: { partition: "aws", account: "123456789012" },
    sonicEndpoint: `voxtrail-${stage}-sonic`,
  });
}

describe("stage configuration (config/stages/)", () => {
  it("loads dev.json for dev and for any stage without its own file, and a named file before either", () => {
    expect(load("dev").file).toBe(resolve(root, "config/stages/dev.json"));
    expect(load("alice").file).toBe(resolve(root, "config/stages/dev.json"));
    const own = configEnvironment(repositoryConfig("dev"));
    expect(loadStageConfig("dev", root, own).file).toBe(own.VOXTRAIL_STAGE_CONFIG);
  });

  it.each(readdirSync(resolve(root, "config/stages")))(
    "parses config/stages/%s as checked in (production's model package ARN from the environment)",
    (name) => {
      const stage = name.replace(/\.json$/, "");
      const { config, file } = loadStageConfig(stage, root, PRODUCTION_ENV);
      expect(file).toBe(resolve(root, "config/stages", name));
      expect(config.description).not.toBe("");
    },
  );

  it("reads production's Sonic model package ARN from VOXTRAIL_SONIC_MODEL_PACKAGE_ARN", () => {
    expect(repositoryConfig("production").sonic).toMatchObject({
      modelPackageArn: { fromEnvironment: "VOXTRAIL_SONIC_MODEL_PACKAGE_ARN" },
    });
    expect(loadStageConfig("production", root, PRODUCTION_ENV).config.sonic).toMatchObject({
      modelPackageArn: TEST_MODEL_PACKAGE_ARN,
      instanceType: "ml.g6e.xlarge",
      minInstances: 2,
    });
    // A stage file may still give the ARN itself.
    expect(load("production", subscribedProductionConfig()).config.sonic).toMatchObject({
      modelPackageArn: TEST_MODEL_PACKAGE_ARN,
    });
  });

  it("refuses production.json, naming the file, the field and the variable, while the variable is unset or not a model package ARN", () => {
    const file = resolve(root, "config/stages/production.json");
    const refused = (env: NodeJS.ProcessEnv, reason: RegExp) =>
      expect(() => loadStageConfig("production", root, env)).toThrow(
        expect.objectContaining({
          name: "StageConfigInvalid",
          message: expect.stringMatching(reason),
        }),
      );
    const field = `${file}: sonic.modelPackageArn: `.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    refused(
      {},
      new RegExp(`^${field}set VOXTRAIL_SONIC_MODEL_PACKAGE_ARN to the ARN of the Sonic model package`),
    );
    refused(
      { VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: "" },
      new RegExp(`^${field}set VOXTRAIL_SONIC_MODEL_PACKAGE_ARN`),
    );
    refused(
      { VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: "cartesia-sonic-3" },
      new RegExp(`^${field}VOXTRAIL_SONIC_MODEL_PACKAGE_ARN is not a model package ARN`),
    );
    refused(
      { VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: "arn:aws:sagemaker:us-east-1:123456789012:endpoint/sonic" },
      /VOXTRAIL_SONIC_MODEL_PACKAGE_ARN is not a model package ARN/,
    );
  });

  it("holds production to two Sonic instances and protected lineage; other stages may have less", () => {
    const production = subscribedProductionConfig();
    const single = { ...production, sonic: { ...production.sonic, minInstances: 1 } };
    expect(() => load("production", single)).toThrow(/sonic\.minInstances must be at least 2 in production/);
    expect(load("staging", single).config.sonic).toMatchObject({ minInstances: 1 });
    const unprotected = { ...production, storage: { ...production.storage, protectLineage: false } };
    expect(() => load("production", unprotected)).toThrow(
      /storage\.protectLineage must be true in production/,
    );
  });

  it("accepts an Object Lock retention longer than the caller data's expiry: it covers the audit trail only", () => {
    const production = subscribedProductionConfig();
    const longer = {
      ...production,
      storage: { ...production.storage, objectLock: { mode: "GOVERNANCE", days: 2555 } },
    };
    expect(load("production", longer).config.storage.objectLock).toEqual({ mode: "GOVERNANCE", days: 2555 });
  });

  it("refuses what cannot run in Lambda or is incomplete, naming each field", () => {
    const dev = repositoryConfig("dev");
    const embedded = { ...dev, providers: { ...dev.providers, transcriber: "local" } };
    expect(() => load("dev", embedded)).toThrow(/providers\.transcriber/);
    const { sonic: _, ...withoutSonic } = dev;
    expect(() => load("dev", withoutSonic)).toThrow(/sonic: sonic-sagemaker needs a sonic endpoint/);
    const twoRecords = { ...dev, providers: { ...dev.providers, recordsUri: "s3://records/records.jsonl" } };
    expect(() => load("dev", twoRecords)).toThrow(/exactly one of recordsKey/);
    const bedrock = { ...dev, providers: { ...dev.providers, reasoner: "bedrock" } };
    expect(() => load("dev", bedrock)).toThrow(/the bedrock reasoner needs bedrockModelId/);
    const transitionTooEarly = {
      ...dev,
      storage: { ...dev.storage, reports: { transitionToInfrequentAccessAfterDays: 7 } },
    };
    expect(() => load("dev", transitionTooEarly)).toThrow(
      /storage\.reports\.transitionToInfrequentAccessAfterDays/,
    );
  });

  it("sizes the batch workflows: batch concurrency defaults to 4, prompts follow the created endpoint or the configured figure", () => {
    const dev = repositoryConfig("dev");
    expect(promptsMaxConcurrency(load("dev").config)).toBe(4);
    const { workflows: _, ...unsized } = dev;
    expect(() => load("dev", unsized)).toThrow(
      /workflows\.promptsMaxConcurrency: needed unless the stage creates its Sonic endpoint/,
    );
    const batchOnly = { ...dev, workflows: { promptsMaxConcurrency: 2 } };
    expect(load("dev", batchOnly).config.workflows).toEqual({
      batchMaxConcurrency: 4,
      promptsMaxConcurrency: 2,
    });
    const production = load("production", subscribedProductionConfig()).config;
    expect(production.workflows).toEqual({ batchMaxConcurrency: 12 });
    // A quarter of the endpoint fully scaled out: 6 instances x 4 generations.
    expect(promptsMaxConcurrency(production)).toBe(6);
    expect(synthesisGates(production)).toEqual({ capacity: 24, synthesize: 18, synthesizePrompt: 6 });
    const explicit = {
      ...subscribedProductionConfig(),
      workflows: { batchMaxConcurrency: 10, promptsMaxConcurrency: 10 },
    };
    expect(promptsMaxConcurrency(load("production", explicit).config)).toBe(10);
    expect(synthesisGates(load("production", explicit).config)).toMatchObject({ synthesize: 14 });
    expect(() =>
      load("dev", { ...dev, workflows: { batchMaxConcurrency: 0, promptsMaxConcurrency: 4 } }),
    ).toThrow(/workflows\.batchMaxConcurrency/);
  });

  it("keeps live calls a quarter of synthesis: prompts below the endpoint's capacity, a batch at most three quarters of the rest", () => {
    const production = subscribedProductionConfig();
    expect(() =>
      load("production", { ...production, workflows: { batchMaxConcurrency: 4, promptsMaxConcurrency: 24 } }),
    ).toThrow(/workflows\.promptsMaxConcurrency: must be below the Sonic endpoint's capacity \(24\)/);
    expect(() => load("production", { ...production, workflows: { batchMaxConcurrency: 14 } })).toThrow(
      /workflows\.batchMaxConcurrency: must be at most 13/,
    );
    const sonic = production.sonic as Record<string, unknown>;
    expect(() =>
      load("production", { ...production, sonic: { ...sonic, targetConcurrentRequestsPerInstance: 6 } }),
    ).toThrow(/targetConcurrentRequestsPerInstance must be at most generationsPerInstance/);
  });

  it("passes the providers to the functions as environment variables they read back unchanged", () => {
    const config: StageConfig = load("dev").config;
    const selection = selectionOf(config, "dev");
    expect(selection).toMatchObject({
      transcriber: "cartesia-ink",
      reasoner: "local",
      synthesizer: "sonic-sagemaker",
      records: "s3",
      recordsUri: "s3://voicemail-bucket/records/records.jsonl",
      sonicEndpoint: "voxtrail-dev-sonic",
    });
    expect(selectionFromEnvironment(selectionEnvironment(selection))).toEqual(selection);
    // Cartesia Ink: no transcription jobs, so no job name prefix.
    expect(selection.transcribeJobPrefix).toBeUndefined();
    expect(selectionEnvironment(selection).VOXTRAIL_TRANSCRIBE_JOB_PREFIX).toBeUndefined();
  });

  it("transcribes production with Amazon Transcribe, its jobs named <app>-<stage>-...", () => {
    const { config } = loadStageConfig("production", root, PRODUCTION_ENV);
    expect(config.providers.transcriber).toBe("amazon-transcribe");
    const selection = selectionOf(config, "production");
    expect(selection).toMatchObject({
      transcriber: "amazon-transcribe",
      transcribeJobPrefix: "voxtrail-production-",
      transcribeDataAccessRoleArn:
        "arn:aws:iam::123456789012:role/voxtrail-production-transcribe-data-access",
    });
    const environment = selectionEnvironment(selection);
    expect(environment).toMatchObject({
      VOXTRAIL_TRANSCRIBER: "amazon-transcribe",
      VOXTRAIL_TRANSCRIBE_JOB_PREFIX: "voxtrail-production-",
    });
    expect(selectionFromEnvironment(environment)).toEqual(selection);
    expect(transcribeJobPrefix("voxtrail", "pr-42")).toBe("voxtrail-pr-42-");
    // Any stage may choose it (it runs in the stage's own account).
    const dev = repositoryConfig("dev");
    const transcribing = { ...dev, providers: { ...dev.providers, transcriber: "amazon-transcribe" } };
    expect(load("alice", transcribing).config.providers.transcriber).toBe("amazon-transcribe");
  });
});
