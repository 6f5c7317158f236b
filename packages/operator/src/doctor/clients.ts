import { BedrockClient } from "@aws-sdk/client-bedrock";
import { OrganizationsClient } from "@aws-sdk/client-organizations";
import { SageMakerClient } from "@aws-sdk/client-sagemaker";
import { ServiceQuotasClient } from "@aws-sdk/client-service-quotas";

/** The AWS clients the checks ask, all for the account and region a deploy would use. */
export interface DoctorClients {
  sagemaker: SageMakerClient;
  serviceQuotas: ServiceQuotasClient;
  /** Bedrock's control plane (model catalog, inference profiles), not bedrock-runtime. */
  bedrock: BedrockClient;
  /**
   * AWS Organizations, a global service: the SDK sends to `organizations.us-east-1.amazonaws.com`
   * (signed for us-east-1) whatever the region.
   */
  organizations: OrganizationsClient;
}

/** No AWS region is configured (neither `AWS_REGION` nor the profile's `region`). */
export class DoctorRegionMissing extends Error {
  constructor() {
    super("no AWS region: set AWS_REGION (or a region in the AWS profile), the region the stage deploys to");
    this.name = "DoctorRegionMissing";
  }
}

/**
 * Clients with the standard AWS configuration, as `sst deploy` would see it: region and
 * credentials from the environment or the profile (`AWS_PROFILE`), and endpoints from
 * `AWS_ENDPOINT_URL_SAGEMAKER`, `AWS_ENDPOINT_URL_SERVICE_QUOTAS`, `AWS_ENDPOINT_URL_BEDROCK`,
 * `AWS_ENDPOINT_URL_ORGANIZATIONS` when set.
 *
 * @example
 * const clients = createDoctorClients();
 * await clientRegion(clients); // "us-east-1"
 */
export function createDoctorClients(): DoctorClients {
  return {
    sagemaker: new SageMakerClient({}),
    serviceQuotas: new ServiceQuotasClient({}),
    bedrock: new BedrockClient({}),
    organizations: new OrganizationsClient({}),
  };
}

/** The region the clients ask in (SageMaker's); throws {@link DoctorRegionMissing} when there is none. */
export async function clientRegion(clients: DoctorClients): Promise<string> {
  let region: string | undefined;
  try {
    region = await clients.sagemaker.config.region();
  } catch {
    region = undefined;
  }
  if (!region) throw new DoctorRegionMissing();
  return region;
}
