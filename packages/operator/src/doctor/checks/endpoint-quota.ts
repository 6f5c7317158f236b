import {
  paginateListAWSDefaultServiceQuotas,
  paginateListServiceQuotas,
  type ServiceQuota,
  type ServiceQuotasClient,
} from "@aws-sdk/client-service-quotas";
import { type Finding, missing, ok, unchecked } from "../findings";

const CHECK = "endpoint-quota";

/** The name Service Quotas gives SageMaker's per-instance-type endpoint quota. */
export function endpointQuotaName(instanceType: string): string {
  return `${instanceType} for endpoint usage`;
}

/** The first quota of SageMaker's named `name`, from every page. */
async function findQuota(
  pages: AsyncIterable<{ Quotas?: ServiceQuota[] | undefined }>,
  name: string,
): Promise<ServiceQuota | undefined> {
  for await (const page of pages) {
    const quota = page.Quotas?.find((candidate) => candidate.QuotaName === name);
    if (quota) return quota;
  }
  return undefined;
}

/**
 * Checks that the account may run `maxInstances` endpoint instances of the stage's instance type:
 * Service Quotas' `ListServiceQuotas` for `sagemaker` (the applied values), else
 * `ListAWSDefaultServiceQuotas` (Service Quotas leaves out quotas whose applied value it does not
 * have), for the quota named `<instanceType> for endpoint usage`. The quota is shared by every
 * endpoint of the account and region on that instance type.
 *
 * @example
 * await checkEndpointQuota({ instanceType: "ml.g6e.xlarge", maxInstances: 6 }, serviceQuotas, "us-east-1");
 * // [{ check: "endpoint-quota", status: "missing", message: "quota \"ml.g6e.xlarge for endpoint usage\" (L-...) is 2 ..." }]
 */
export async function checkEndpointQuota(
  sonic: { instanceType: string; maxInstances: number },
  serviceQuotas: ServiceQuotasClient,
  region: string,
): Promise<Finding[]> {
  const name = endpointQuotaName(sonic.instanceType);
  let quota: ServiceQuota | undefined;
  let source = "applied";
  try {
    quota = await findQuota(
      paginateListServiceQuotas({ client: serviceQuotas }, { ServiceCode: "sagemaker" }),
      name,
    );
    if (!quota) {
      source = "default";
      quota = await findQuota(
        paginateListAWSDefaultServiceQuotas({ client: serviceQuotas }, { ServiceCode: "sagemaker" }),
        name,
      );
    }
  } catch (error) {
    return [unchecked(CHECK, name, `list SageMaker's service quotas in ${region}`, error)];
  }
  if (!quota) {
    return [
      missing(
        CHECK,
        name,
        `SageMaker has no quota "${name}" in ${region}: ${sonic.instanceType} is not offered for endpoints there; check sonic.instanceType and the region`,
      ),
    ];
  }
  const value = quota.Value ?? 0;
  const code = quota.QuotaCode ?? "(no quota code)";
  if (value < sonic.maxInstances) {
    return [
      missing(
        CHECK,
        name,
        `quota "${name}" (${code}) is ${value} in ${region} (${source} value) but the stage scales to ${sonic.maxInstances} instances (sonic.maxInstances): request ${sonic.maxInstances} or more in Service Quotas (aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code ${code} --desired-value ${sonic.maxInstances} --region ${region})`,
      ),
    ];
  }
  return [
    ok(
      CHECK,
      name,
      `quota "${name}" (${code}) is ${value} in ${region}, enough for ${sonic.maxInstances} instances (shared with the account's other endpoints on ${sonic.instanceType})`,
    ),
  ];
}
