import type { Boundary } from "@voxtrail/core";

/** The part of an AWS SDK v3 client's resolved configuration that says where its requests go. */
export interface RegionalClient {
  config: { region: () => Promise<string> };
}

/**
 * The `aws-account` boundary of an AWS SDK client: `service` in the region the client resolved
 * from its configuration (constructor, `AWS_REGION`, profile), as lineage should record it.
 *
 * @example
 * await awsAccountBoundary(new BedrockRuntimeClient({}), "bedrock");
 * // { kind: "aws-account", service: "bedrock", region: "eu-west-1" }
 */
export async function awsAccountBoundary(client: RegionalClient, service: string): Promise<Boundary> {
  return { kind: "aws-account", service, region: await client.config.region() };
}
