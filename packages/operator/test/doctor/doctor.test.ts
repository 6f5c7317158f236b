import { BedrockClient } from "@aws-sdk/client-bedrock";
import { OrganizationsClient } from "@aws-sdk/client-organizations";
import { SageMakerClient } from "@aws-sdk/client-sagemaker";
import { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";
import { afterEach, describe, expect, it } from "vitest";
import { StageConfig } from "../../../../stacks/stage-config";
import type { DoctorClients } from "../../src/doctor/clients";
import { type DoctorReport, formatFinding, runDoctor } from "../../src/doctor/doctor";
import { type AwsStandIn, type StandInAccount, startAwsStandIn } from "./aws-stand-in";
import { MODEL_ID, MODEL_PACKAGE_ARN, PROFILE_ID, stageJson } from "./stage-json";

const REGION = "us-east-1";
const QUOTA = { name: "ml.g6e.xlarge for endpoint usage", code: "L-6DE1A2B3", value: 8 };

/** Everything a production-like stage needs, present. */
function readyAccount(): StandInAccount {
  return {
    region: REGION,
    modelPackages: { [MODEL_PACKAGE_ARN]: { status: "Completed" } },
    endpoints: { "voxtrail-dev-sonic": { status: "InService", variants: ["AllTraffic"] } },
    appliedQuotas: [QUOTA],
    defaultQuotas: [{ ...QUOTA, value: 0 }],
    foundationModels: { [MODEL_ID]: { inferenceTypes: ["ON_DEMAND"] } },
    inferenceProfiles: { [PROFILE_ID]: { regions: ["us-east-1", "us-west-2"], modelId: MODEL_ID } },
    aiOptOutPolicy: { services: { default: { opt_out_policy: "optOut" } } },
  };
}

/** The real SDK clients, pointed at the stand-in. */
function clientsFor(url: string, region = REGION): DoctorClients {
  const settings = {
    endpoint: url,
    region,
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
    maxAttempts: 1,
  };
  return {
    sagemaker: new SageMakerClient(settings),
    serviceQuotas: new ServiceQuotasClient(settings),
    bedrock: new BedrockClient(settings),
    organizations: new OrganizationsClient(settings),
  };
}

let standIn: AwsStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

async function doctor(
  account: StandInAccount,
  overrides: Parameters<typeof stageJson>[0] = {},
  region = REGION,
): Promise<DoctorReport> {
  standIn = await startAwsStandIn(account);
  return runDoctor(StageConfig.parse(stageJson(overrides)), clientsFor(standIn.url, region));
}

function only(report: DoctorReport, check: string) {
  const found = report.findings.filter((finding) => finding.check === check);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe("runDoctor against AWS stand-ins", () => {
  it("passes a stage whose model package, quota and Bedrock model are all there", async () => {
    const report = await doctor(readyAccount());
    expect(report.region).toBe(REGION);
    expect(report.findings.map((finding) => [finding.check, finding.status])).toEqual([
      ["sonic-model-package", "ok"],
      ["endpoint-quota", "ok"],
      ["bedrock-model", "ok"],
    ]);
    expect(report.ok).toBe(true);
    expect(only(report, "endpoint-quota").message).toContain(
      `"ml.g6e.xlarge for endpoint usage" (L-6DE1A2B3) is 8`,
    );
    expect(only(report, "bedrock-model").message).toBe(
      `foundation model ${MODEL_ID} through inference profile ${PROFILE_ID} is available in us-east-1`,
    );
    // What went over the wire: the operations, signed for each service.
    const calls = standIn!.requests.map(
      (request) => `${request.signingService} ${request.target ?? request.path}`,
    );
    expect(calls).toEqual(
      expect.arrayContaining([
        "sagemaker SageMaker.DescribeModelPackage",
        "servicequotas ServiceQuotasV20190624.ListServiceQuotas",
        `bedrock /inference-profiles/${encodeURIComponent(PROFILE_ID)}`,
        `bedrock /foundation-models/${encodeURIComponent(MODEL_ID)}`,
      ]),
    );
    // The quota was on the second page: the client followed NextToken.
    expect(calls.filter((call) => call.endsWith("ListServiceQuotas"))).toHaveLength(2);
    expect(standIn!.requests.find((r) => r.target?.endsWith("DescribeModelPackage"))!.body).toBe(
      JSON.stringify({ ModelPackageName: MODEL_PACKAGE_ARN }),
    );
  });

  it("passes a stage on an existing InService endpoint with a foundation model id", async () => {
    const report = await doctor(readyAccount(), {
      sonic: { endpointName: "voxtrail-dev-sonic" },
      providers: { bedrockModelId: MODEL_ID },
    });
    expect(report.ok).toBe(true);
    expect(report.findings.map(formatFinding)).toEqual([
      "ok        sonic-endpoint: endpoint voxtrail-dev-sonic is InService in us-east-1 with variant AllTraffic",
      `ok        bedrock-model: foundation model ${MODEL_ID} is available in us-east-1`,
    ]);
  });

  it("says to subscribe when the model package does not exist for the account", async () => {
    const report = await doctor({ ...readyAccount(), modelPackages: {} });
    const finding = only(report, "sonic-model-package");
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain(`ModelPackage ${MODEL_PACKAGE_ARN} does not exist.`);
    expect(finding.message).toContain("subscribe to Cartesia's Sonic in AWS Marketplace");
    expect(finding.message).toContain("check the region");
    expect(report.ok).toBe(false);
    expect(only(report, "endpoint-quota").status).toBe("ok");
  });

  it("says to subscribe when DescribeModelPackage is refused", async () => {
    const report = await doctor({ ...readyAccount(), refuseModelPackages: true });
    const finding = only(report, "sonic-model-package");
    expect(finding.status).toBe("missing");
    expect(finding.message).toMatch(
      /refused to this account \(AccessDeniedException: User: .* is not authorized/,
    );
    expect(finding.message).toContain("subscribe to Cartesia's Sonic in AWS Marketplace");
  });

  it("reports a model package that is not Completed, with its failure", async () => {
    const report = await doctor({
      ...readyAccount(),
      modelPackages: { [MODEL_PACKAGE_ARN]: { status: "Failed" } },
    });
    const finding = only(report, "sonic-model-package");
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain(`is Failed, not Completed (sonic: image scan failed)`);
  });

  it("reports a model package ARN of another region without asking", async () => {
    const report = await doctor(readyAccount(), {}, "eu-west-1");
    const finding = only(report, "sonic-model-package");
    expect(finding.message).toContain("is in us-east-1 but the stage deploys to eu-west-1");
    expect(standIn!.requests.some((r) => r.target === "SageMaker.DescribeModelPackage")).toBe(false);
  });

  it("names the quota, its value and what to request when it is too low", async () => {
    const report = await doctor({ ...readyAccount(), appliedQuotas: [{ ...QUOTA, value: 2 }] });
    const finding = only(report, "endpoint-quota");
    expect(finding).toMatchObject({ status: "missing", subject: "ml.g6e.xlarge for endpoint usage" });
    expect(finding.message).toBe(
      `quota "ml.g6e.xlarge for endpoint usage" (L-6DE1A2B3) is 2 in us-east-1 (applied value) but the stage scales to 6 instances (sonic.maxInstances): request 6 or more in Service Quotas (aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code L-6DE1A2B3 --desired-value 6 --region us-east-1)`,
    );
  });

  it("falls back to the default value when the quota has no applied value", async () => {
    const report = await doctor({ ...readyAccount(), appliedQuotas: [] });
    const finding = only(report, "endpoint-quota");
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain("is 0 in us-east-1 (default value)");
    expect(
      standIn!.requests.some((r) => r.target === "ServiceQuotasV20190624.ListAWSDefaultServiceQuotas"),
    ).toBe(true);
  });

  it("reports a quota absent from both lists", async () => {
    const report = await doctor({ ...readyAccount(), appliedQuotas: [], defaultQuotas: [] });
    const finding = only(report, "endpoint-quota");
    expect(finding.status).toBe("missing");
    expect(finding.message).toBe(
      `SageMaker has no quota "ml.g6e.xlarge for endpoint usage" in us-east-1: ml.g6e.xlarge is not offered for endpoints there; check sonic.instanceType and the region`,
    );
  });

  it("says to enable model access when Bedrock refuses the model", async () => {
    const account = readyAccount();
    account.foundationModels = { [MODEL_ID]: { denied: true } };
    const report = await doctor(account);
    const finding = only(report, "bedrock-model");
    expect(finding.status).toBe("missing");
    expect(finding.message).toContain("(AccessDeniedException: You don't have access to the model");
    expect(finding.message).toContain(
      `enable model access to ${MODEL_ID} in the Bedrock console (Model access) for us-east-1`,
    );
  });

  it("reports an unknown inference profile and a model that needs one", async () => {
    const unknownProfile = only(
      await doctor(readyAccount(), { providers: { bedrockModelId: "eu.anthropic.claude-x" } }),
      "bedrock-model",
    );
    expect(unknownProfile.message).toContain("(ResourceNotFoundException: Inference profile not found.)");
    await standIn!.close();
    const account = readyAccount();
    account.foundationModels = { [MODEL_ID]: { inferenceTypes: ["INFERENCE_PROFILE"] } };
    const profileOnly = only(
      await doctor(account, { providers: { bedrockModelId: MODEL_ID } }),
      "bedrock-model",
    );
    expect(profileOnly.message).toContain(
      "cannot be invoked on demand in us-east-1 (it supports INFERENCE_PROFILE)",
    );
  });

  it("reports an existing endpoint that is not InService, and a missing variant", async () => {
    const account = readyAccount();
    account.endpoints = {
      "voxtrail-dev-sonic": { status: "Failed", variants: ["Primary"], failureReason: "CapacityError" },
    };
    const report = await doctor(account, { sonic: { endpointName: "voxtrail-dev-sonic" } });
    const findings = report.findings.filter((finding) => finding.check === "sonic-endpoint");
    expect(findings.map((finding) => finding.message)).toEqual([
      "endpoint voxtrail-dev-sonic is Failed (CapacityError), not InService: the pipeline streams from it; wait for it or fix it in SageMaker AI > Endpoints (us-east-1)",
      "endpoint voxtrail-dev-sonic has no production variant AllTraffic (it has Primary): set sonic.variantName to one of them",
    ]);
    expect(report.findings.some((finding) => finding.check === "endpoint-quota")).toBe(false);
  });

  it("reports a missing existing endpoint", async () => {
    const report = await doctor({ ...readyAccount(), endpoints: {} }, { sonic: { endpointName: "nope" } });
    expect(only(report, "sonic-endpoint").message).toContain(
      'endpoint nope does not exist in us-east-1 (Could not find endpoint "arn:aws:sagemaker:us-east-1:111122223333:endpoint/nope".)',
    );
  });

  it("leaves an error it cannot interpret unchecked, and fails", async () => {
    const report = await doctor({ ...readyAccount(), sagemakerError: "UnrecognizedClientException" });
    const finding = only(report, "sonic-model-package");
    expect(finding.status).toBe("unchecked");
    expect(finding.message).toContain(
      "UnrecognizedClientException: The security token included in the request is invalid.",
    );
    expect(report.ok).toBe(false);
  });

  it("asks Organizations first for a stage that transcribes with Amazon Transcribe", async () => {
    const report = await doctor(readyAccount(), { providers: { transcriber: "amazon-transcribe" } });
    expect(report.findings.map((finding) => [finding.check, finding.status])).toEqual([
      ["ai-opt-out", "ok"],
      ["sonic-model-package", "ok"],
      ["endpoint-quota", "ok"],
      ["bedrock-model", "ok"],
    ]);
    expect(report.ok).toBe(true);
    expect(formatFinding(only(report, "ai-opt-out"))).toBe(
      "ok        ai-opt-out: this account's effective AI services opt-out policy opts it out of transcribe by its default entry (it has no transcribe entry)",
    );
    const asked = standIn!.requests.filter(
      (r) => r.target === "AWSOrganizationsV20161128.DescribeEffectivePolicy",
    );
    expect(asked.map((r) => [r.signingService, r.body])).toEqual([
      ["organizations", JSON.stringify({ PolicyType: "AISERVICES_OPT_OUT_POLICY" })],
    ]);
  });

  it("fails a Transcribe stage whose account has no opt-out policy, or is in no organization", async () => {
    const noPolicy = await doctor(
      { ...readyAccount(), aiOptOutPolicy: undefined },
      {
        providers: { transcriber: "amazon-transcribe" },
      },
    );
    expect(only(noPolicy, "ai-opt-out")).toMatchObject({ status: "missing", subject: "transcribe" });
    expect(only(noPolicy, "ai-opt-out").message).toMatch(
      /^no AI services opt-out policy applies to this account \(EffectivePolicyNotFoundException: /,
    );
    expect(noPolicy.ok).toBe(false);
    await standIn!.close();
    const noOrganization = await doctor(
      { ...readyAccount(), organizationsError: "AWSOrganizationsNotInUseException" },
      { providers: { transcriber: "amazon-transcribe" } },
    );
    expect(only(noOrganization, "ai-opt-out").status).toBe("missing");
    expect(only(noOrganization, "ai-opt-out").message).toContain("this account is in no AWS organization");
    await standIn!.close();
    const refused = await doctor(
      { ...readyAccount(), organizationsError: "AccessDeniedException" },
      { providers: { transcriber: "amazon-transcribe" } },
    );
    expect(only(refused, "ai-opt-out").status).toBe("unchecked");
    expect(only(refused, "ai-opt-out").message).toContain("organizations:DescribeEffectivePolicy");
    expect(refused.ok).toBe(false);
  });

  it("does not ask about the opt-out for a stage that transcribes with cartesia-ink", async () => {
    // The account has no opt-out policy: asking would have found it missing.
    const report = await doctor({ ...readyAccount(), aiOptOutPolicy: undefined });
    expect(report.findings.some((finding) => finding.check === "ai-opt-out")).toBe(false);
    expect(report.ok).toBe(true);
    expect(standIn!.requests.some((r) => r.signingService === "organizations")).toBe(false);
  });

  it("asks nothing for a stage that neither synthesizes on SageMaker nor reasons on Bedrock", async () => {
    const report = await doctor(readyAccount(), {
      providers: { reasoner: "local", synthesizer: "cartesia-api" },
    });
    expect(report).toEqual({ region: REGION, ok: true, findings: [] });
    expect(standIn!.requests).toEqual([]);
  });
});
