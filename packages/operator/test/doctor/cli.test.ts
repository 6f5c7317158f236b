import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AwsStandIn, type StandInAccount, startAwsStandIn } from "./aws-stand-in";
import { MODEL_ID, MODEL_PACKAGE_ARN, PROFILE_ID, stageJson } from "./stage-json";

const root = resolve(import.meta.dirname, "../../../..");
const QUOTA = { name: "ml.g6e.xlarge for endpoint usage", code: "L-6DE1A2B3", value: 8 };

/** What `npm run doctor` printed and how it ended. */
interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), "voxtrail-doctor-"));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/**
 * Runs packages/operator/src/doctor/cli.ts as `npm run doctor` does (tsx), with a clean environment: the stage
 * file through VOXTRAIL_STAGE_CONFIG, every AWS endpoint through AWS_ENDPOINT_URL_<SERVICE>.
 */
function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    execFile(
      join(root, "node_modules/.bin/tsx"),
      ["packages/operator/src/doctor/cli.ts", ...args],
      {
        cwd: root,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: directory,
          AWS_CONFIG_FILE: join(directory, "no-config"),
          AWS_SHARED_CREDENTIALS_FILE: join(directory, "no-credentials"),
          AWS_EC2_METADATA_DISABLED: "true",
          AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
          AWS_SECRET_ACCESS_KEY: "secret",
          AWS_MAX_ATTEMPTS: "1",
          ...env,
        },
      },
      (error, stdout, stderr) => {
        done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

function stageFile(name: string, json: Record<string, unknown>): string {
  const file = join(directory, `${name}.json`);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

async function withStandIn<T>(account: StandInAccount, use: (standIn: AwsStandIn) => Promise<T>): Promise<T> {
  const standIn = await startAwsStandIn(account);
  try {
    return await use(standIn);
  } finally {
    await standIn.close();
  }
}

function endpoints(url: string): Record<string, string> {
  return {
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL_SAGEMAKER: url,
    AWS_ENDPOINT_URL_SERVICE_QUOTAS: url,
    AWS_ENDPOINT_URL_BEDROCK: url,
    AWS_ENDPOINT_URL_ORGANIZATIONS: url,
  };
}

const ready: StandInAccount = {
  region: "us-east-1",
  modelPackages: { [MODEL_PACKAGE_ARN]: { status: "Completed" } },
  appliedQuotas: [QUOTA],
  foundationModels: { [MODEL_ID]: {} },
  inferenceProfiles: { [PROFILE_ID]: { regions: ["us-east-1"], modelId: MODEL_ID } },
};

describe("npm run doctor", () => {
  it("prints one ok line per check and exits 0 when everything is there", async () => {
    const file = stageFile("ready", stageJson());
    const run = await withStandIn(ready, (standIn) =>
      runCli(["--stage", "staging"], { ...endpoints(standIn.url), VOXTRAIL_STAGE_CONFIG: file }),
    );
    // (On Node 20 the SDK also warns on stderr that its 2027 releases need Node 22.)
    expect(run.stderr).toContain(`doctor: stage staging (${file}) in us-east-1\n`);
    expect(run.stdout.trimEnd().split("\n")).toEqual([
      `ok        sonic-model-package: model package sonic-3-6-a1b2c3d4 is Completed in us-east-1`,
      `ok        endpoint-quota: quota "ml.g6e.xlarge for endpoint usage" (L-6DE1A2B3) is 8 in us-east-1, enough for 6 instances (shared with the account's other endpoints on ml.g6e.xlarge)`,
      `ok        bedrock-model: foundation model ${MODEL_ID} through inference profile ${PROFILE_ID} is available in us-east-1`,
    ]);
    expect(run.code).toBe(0);
  });

  it("prints a line per missing thing and exits 1; reads the ARN from the environment", async () => {
    const file = stageFile("from-environment", {
      ...stageJson(),
      sonic: {
        modelPackageArn: { fromEnvironment: "VOXTRAIL_SONIC_MODEL_PACKAGE_ARN" },
        instanceType: "ml.g6e.xlarge",
        minInstances: 2,
        maxInstances: 6,
        targetConcurrentRequestsPerInstance: 3,
      },
    });
    const account: StandInAccount = {
      ...ready,
      appliedQuotas: [{ ...QUOTA, value: 1 }],
      foundationModels: { [MODEL_ID]: { denied: true } },
    };
    const run = await withStandIn(account, (standIn) =>
      runCli(["--stage", "production"], {
        ...endpoints(standIn.url),
        VOXTRAIL_STAGE_CONFIG: file,
        VOXTRAIL_SONIC_MODEL_PACKAGE_ARN: MODEL_PACKAGE_ARN,
      }),
    );
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ok {8}sonic-model-package: /);
    expect(lines[1]).toMatch(
      /^missing {3}endpoint-quota: quota "ml.g6e.xlarge for endpoint usage" \(L-6DE1A2B3\) is 1 /,
    );
    expect(lines[2]).toMatch(/^missing {3}bedrock-model: .*enable model access .* for us-east-1$/);
    expect(run.code).toBe(1);
  });

  it("asks Organizations (AWS_ENDPOINT_URL_ORGANIZATIONS) first for a stage on Amazon Transcribe", async () => {
    const file = stageFile("transcribe", stageJson({ providers: { transcriber: "amazon-transcribe" } }));
    const optedOut: StandInAccount = {
      ...ready,
      aiOptOutPolicy: { services: { transcribe: { opt_out_policy: "optOut" } } },
    };
    const run = await withStandIn(optedOut, (standIn) =>
      runCli(["--stage", "production"], { ...endpoints(standIn.url), VOXTRAIL_STAGE_CONFIG: file }),
    );
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toBe(
      "ok        ai-opt-out: this account's effective AI services opt-out policy opts it out of transcribe by its transcribe entry",
    );
    expect(run.code).toBe(0);
    const noPolicy = await withStandIn(ready, (standIn) =>
      runCli(["--stage", "production"], { ...endpoints(standIn.url), VOXTRAIL_STAGE_CONFIG: file }),
    );
    expect(noPolicy.stdout.split("\n")[0]).toMatch(
      /^missing {3}ai-opt-out: no AI services opt-out policy applies to this account \(EffectivePolicyNotFoundException: /,
    );
    expect(noPolicy.code).toBe(1);
  });

  it("prints the report as JSON with --json", async () => {
    const file = stageFile("json", stageJson());
    const run = await withStandIn({ ...ready, modelPackages: {} }, (standIn) =>
      runCli(["--stage", "staging", "--json"], { ...endpoints(standIn.url), VOXTRAIL_STAGE_CONFIG: file }),
    );
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ stage: "staging", file, region: "us-east-1", ok: false });
    expect(report.findings.map((finding: { status: string }) => finding.status)).toEqual([
      "missing",
      "ok",
      "ok",
    ]);
    expect(run.code).toBe(1);
  });

  it("exits 2 naming the variable when the stage file reads an unset one", async () => {
    const file = stageFile("unset", {
      ...stageJson(),
      sonic: {
        ...(stageJson().sonic as object),
        modelPackageArn: { fromEnvironment: "VOXTRAIL_SONIC_MODEL_PACKAGE_ARN" },
      },
    });
    const run = await runCli(["--stage", "production"], {
      AWS_REGION: "us-east-1",
      VOXTRAIL_STAGE_CONFIG: file,
    });
    expect(run.stderr).toContain("doctor: StageConfigInvalid: ");
    expect(run.stderr).toContain("set VOXTRAIL_SONIC_MODEL_PACKAGE_ARN");
    expect(run.stdout).toBe("");
    expect(run.code).toBe(2);
  });

  it("exits 2 without --stage or without a region", async () => {
    const usage = await runCli([], {});
    expect(usage.stderr).toContain("DoctorUsageError: --stage is required");
    expect(usage.code).toBe(2);
    const noRegion = await runCli(["--stage", "staging"], {
      VOXTRAIL_STAGE_CONFIG: stageFile("no-region", stageJson()),
    });
    expect(noRegion.stderr).toContain("DoctorRegionMissing: no AWS region");
    expect(noRegion.code).toBe(2);
  });
});
