import type { StageConfig } from "../../../../stacks/stage-config";
import { checkAiServicesOptOut } from "./checks/ai-services-opt-out";
import { checkBedrockModel } from "./checks/bedrock-model";
import { checkEndpointQuota } from "./checks/endpoint-quota";
import { checkSonicEndpoint } from "./checks/sonic-endpoint";
import { checkSonicModelPackage } from "./checks/sonic-model-package";
import { clientRegion, type DoctorClients } from "./clients";
import type { Finding } from "./findings";

/** What the account said about a stage's prerequisites. */
export interface DoctorReport {
  /** The region the clients asked in: the one a deploy from this shell would use. */
  region: string;
  /** True when every finding is `ok` (nothing missing, nothing left unchecked). */
  ok: boolean;
  /**
   * In check order: AI services opt-out (Amazon Transcribe), Sonic (model package or endpoint),
   * endpoint quota, Bedrock model.
   */
  findings: Finding[];
}

/**
 * Asks the account what a deploy of the stage needs and only the account knows:
 * - when the transcriber is `amazon-transcribe`: that the account's effective AI services opt-out
 *   policy (AWS Organizations) opts it out of content use by Amazon Transcribe, the condition the
 *   boundary policy sets on sending it caller audio (`requires: ai-services-opt-out`);
 * - when the stage synthesizes on SageMaker and creates its endpoint (`sonic.modelPackageArn`):
 *   the Marketplace model package, and the `<instanceType> for endpoint usage` quota against
 *   `maxInstances`;
 * - when it uses an existing endpoint (`sonic.endpointName`): that endpoint, InService;
 * - when the reasoner is `bedrock`: access to `bedrockModelId` in the region.
 * Never throws for what AWS answers (a refusal it cannot interpret is an `unchecked` finding);
 * throws {@link DoctorRegionMissing} when no region is configured.
 *
 * @example
 * const { config } = loadStageConfig("production", root);
 * const report = await runDoctor(config, createDoctorClients());
 * report.ok; // false
 * report.findings[2]; // { check: "endpoint-quota", status: "missing", subject: "ml.g6e.xlarge for endpoint usage", message: "..." }
 */
export async function runDoctor(config: StageConfig, clients: DoctorClients): Promise<DoctorReport> {
  const region = await clientRegion(clients);
  const checks: Array<Promise<Finding[]>> = [];
  if (config.providers.transcriber === "amazon-transcribe") {
    checks.push(checkAiServicesOptOut(clients.organizations, "transcribe"));
  }
  const sonic = config.sonic;
  if (config.providers.synthesizer === "sonic-sagemaker" && sonic !== undefined) {
    if ("modelPackageArn" in sonic) {
      checks.push(checkSonicModelPackage(sonic.modelPackageArn, clients.sagemaker, region));
      checks.push(checkEndpointQuota(sonic, clients.serviceQuotas, region));
    } else {
      checks.push(checkSonicEndpoint(sonic, clients.sagemaker, region));
    }
  }
  const modelId = config.providers.bedrockModelId;
  if (config.providers.reasoner === "bedrock" && modelId !== undefined) {
    checks.push(checkBedrockModel(modelId, clients.bedrock, region));
  }
  const findings = (await Promise.all(checks)).flat();
  return { region, ok: findings.every((finding) => finding.status === "ok"), findings };
}

/** One finding as one line: `ok      sonic-endpoint: endpoint ... is InService ...`. */
export function formatFinding(finding: Finding): string {
  return `${finding.status.padEnd(9)} ${finding.check}: ${finding.message}`;
}
