import { CreateKeyCommand, type KeySpec, type KeyUsageType, KMSClient } from "@aws-sdk/client-kms";
import type { StagePlan } from "./stage-plan";

/**
 * The stage's KMS keys created in moto_server as the deploy creates them (their spec and usage),
 * and the plan with each key's mock ARN replaced by the ARN KMS assigned, wherever the stacks put
 * it (a function's environment, a role's policy): a key's id is only known once KMS made it.
 *
 * @example
 * const plan = await deployKeys(await evaluateStage("dev"), motoEndpoint);
 */
export async function deployKeys(plan: StagePlan, motoEndpoint: string): Promise<StagePlan> {
  if (plan.keys.length === 0) return plan;
  const kms = new KMSClient({
    endpoint: motoEndpoint,
    region: plan.region,
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  });
  let json = JSON.stringify(plan);
  for (const key of plan.keys) {
    const created = await kms.send(
      new CreateKeyCommand({
        KeySpec: key.keySpec as KeySpec,
        KeyUsage: key.keyUsage as KeyUsageType,
        Description: `rehearsal of ${plan.stage}: ${key.logicalName}`,
      }),
    );
    const arn = created.KeyMetadata?.Arn;
    if (!arn) throw new Error(`moto_server created no key for ${key.logicalName}`);
    json = json.replaceAll(key.arn, arn);
  }
  return JSON.parse(json) as StagePlan;
}
