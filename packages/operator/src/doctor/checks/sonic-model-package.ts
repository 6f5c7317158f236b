import { DescribeModelPackageCommand, type SageMakerClient } from "@aws-sdk/client-sagemaker";
import { describedOr, type Finding, missing, ok } from "../findings";

const CHECK = "sonic-model-package";

/** Where the subscription's ARN is shown, for the messages. */
const SUBSCRIPTIONS = "AWS Marketplace (SageMaker AI > Model packages > My subscriptions)";

/** The region in a SageMaker ARN, `arn:aws:sagemaker:<region>:...`. */
function arnRegion(arn: string): string | undefined {
  return arn.split(":")[3] || undefined;
}

/**
 * Checks the Marketplace model package a stage creates its Sonic endpoint from, with
 * `DescribeModelPackage`: it must be in the region the stage deploys to, exist and be visible to
 * the account (an unknown ARN is a `ValidationException` "... does not exist", a refusal an
 * `AccessDeniedException`: both mean subscribe, or take the ARN of this region's subscription),
 * and be `Completed`.
 *
 * @example
 * await checkSonicModelPackage("arn:aws:sagemaker:us-east-1:123456789012:model-package/sonic-3", sagemaker, "us-east-1");
 * // [{ check: "sonic-model-package", status: "ok", ... }]
 */
export async function checkSonicModelPackage(
  modelPackageArn: string,
  sagemaker: SageMakerClient,
  region: string,
): Promise<Finding[]> {
  const inArn = arnRegion(modelPackageArn);
  if (inArn !== region) {
    return [
      missing(
        CHECK,
        modelPackageArn,
        `model package ${modelPackageArn} is in ${inArn} but the stage deploys to ${region}: a model package is used in its own region; take the ARN for ${region} from ${SUBSCRIPTIONS}, or deploy with AWS_REGION=${inArn}`,
      ),
    ];
  }
  const described = await describedOr(
    CHECK,
    modelPackageArn,
    `describe model package ${modelPackageArn}`,
    () => sagemaker.send(new DescribeModelPackageCommand({ ModelPackageName: modelPackageArn })),
    (message) =>
      `model package ${modelPackageArn} does not exist for this account in ${region} (${message}): subscribe to Cartesia's Sonic in AWS Marketplace and copy the ARN from ${SUBSCRIPTIONS} in ${region}; check the region`,
    (error) =>
      `model package ${modelPackageArn} is refused to this account (${error}): subscribe to Cartesia's Sonic in AWS Marketplace (or let the deploying identity call sagemaker:DescribeModelPackage); check the region`,
  );
  if (Array.isArray(described)) return described;
  const status = described.ModelPackageStatus ?? "(no status)";
  if (status !== "Completed") {
    const details = described.ModelPackageStatusDetails;
    const failures = [...(details?.ValidationStatuses ?? []), ...(details?.ImageScanStatuses ?? [])]
      .filter((step) => step.FailureReason)
      .map((step) => `${step.Name}: ${step.FailureReason}`);
    return [
      missing(
        CHECK,
        modelPackageArn,
        `model package ${modelPackageArn} is ${status}, not Completed${failures.length > 0 ? ` (${failures.join("; ")})` : ""}: an endpoint can only be created from a Completed package; wait for it, or subscribe again in AWS Marketplace`,
      ),
    ];
  }
  return [
    ok(
      CHECK,
      modelPackageArn,
      `model package ${described.ModelPackageName ?? modelPackageArn} is Completed in ${region}`,
    ),
  ];
}
