import { DescribeEndpointCommand, type SageMakerClient } from "@aws-sdk/client-sagemaker";
import { describedOr, type Finding, missing, ok } from "../findings";

const CHECK = "sonic-endpoint";

/**
 * Checks the existing Sonic endpoint a stage names (`sonic.endpointName`), with
 * `DescribeEndpoint`: it must exist in the region the stage deploys to (an unknown name is a
 * `ValidationException` "Could not find endpoint ..."), be `InService`, and have the configured
 * production variant (the stage's alarms and metrics are per variant).
 *
 * @example
 * await checkSonicEndpoint({ endpointName: "voxtrail-dev-sonic", variantName: "AllTraffic" }, sagemaker, "eu-west-1");
 */
export async function checkSonicEndpoint(
  sonic: { endpointName: string; variantName: string },
  sagemaker: SageMakerClient,
  region: string,
): Promise<Finding[]> {
  const name = sonic.endpointName;
  const described = await describedOr(
    CHECK,
    name,
    `describe endpoint ${name}`,
    () => sagemaker.send(new DescribeEndpointCommand({ EndpointName: name })),
    (message) =>
      `endpoint ${name} does not exist in ${region} (${message}): deploy Sonic to an endpoint of that name first, or fix sonic.endpointName (or give sonic.modelPackageArn to let the stage create one); check the region`,
  );
  if (Array.isArray(described)) return described;
  const findings: Finding[] = [];
  const status = described.EndpointStatus ?? "(no status)";
  if (status !== "InService") {
    const reason = described.FailureReason ? ` (${described.FailureReason})` : "";
    findings.push(
      missing(
        CHECK,
        name,
        `endpoint ${name} is ${status}${reason}, not InService: the pipeline streams from it; wait for it or fix it in SageMaker AI > Endpoints (${region})`,
      ),
    );
  }
  const variants = (described.ProductionVariants ?? []).map((variant) => variant.VariantName);
  if (!variants.includes(sonic.variantName)) {
    findings.push(
      missing(
        CHECK,
        name,
        `endpoint ${name} has no production variant ${sonic.variantName} (it has ${variants.join(", ") || "none"}): set sonic.variantName to one of them`,
      ),
    );
  }
  if (findings.length > 0) return findings;
  return [ok(CHECK, name, `endpoint ${name} is InService in ${region} with variant ${sonic.variantName}`)];
}
