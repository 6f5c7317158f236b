import { GetParameterCommand, ParameterNotFound, type SSMClient } from "@aws-sdk/client-ssm";
import { type StageResources, stageParameterName } from "@voxtrail/workflow";

/** The stage has no SSM parameter in the configured region: it is not deployed there. */
export class StageNotDeployed extends Error {
  override readonly name = "StageNotDeployed";
}

/** The stage's SSM parameter exists but does not hold its resources as JSON. */
export class InvalidStageParameter extends Error {
  override readonly name = "InvalidStageParameter";
}

const REQUIRED_FIELDS = ["stage", "region", "bucket", "voicemailStateMachineArn"] as const;

/**
 * Reads a deployed stage's resources from its SSM parameter (`/voxtrail/<stage>/resources`), in
 * the region the client is configured for. Rejects with {@link StageNotDeployed} when there is
 * no such parameter, {@link InvalidStageParameter} when its value is not the resources' JSON.
 *
 * @example
 * const resources = await readStageResources(new SSMClient({}), "dev");
 * resources.bucket; // the stage's bucket
 */
export async function readStageResources(ssm: SSMClient, stage: string): Promise<StageResources> {
  const name = stageParameterName(stage);
  let value: string | undefined;
  try {
    value = (await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value;
  } catch (error) {
    if (!(error instanceof ParameterNotFound)) throw error;
    const region = await ssm.config.region();
    throw new StageNotDeployed(`stage ${stage} is not deployed in ${region}: no SSM parameter ${name}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value ?? "");
  } catch {
    throw new InvalidStageParameter(`SSM parameter ${name} does not hold JSON`);
  }
  const fields = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  const missing = REQUIRED_FIELDS.filter((field) => typeof fields[field] !== "string");
  if (missing.length > 0) {
    throw new InvalidStageParameter(`SSM parameter ${name} lacks ${missing.join(", ")}`);
  }
  return parsed as StageResources;
}
