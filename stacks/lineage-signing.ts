import { FUNCTION_ENVIRONMENT, type FunctionSize } from "@voxtrail/workflow";
import { type FunctionSettings, stageFunction } from "./function-settings";
import { accountKeyPolicy, lineageSignerPermissions } from "./permissions";
import { scheduleTrustPolicy } from "./trust-policies";

/**
 * How often the signer runs: hourly, as CloudTrail delivers its digest files. A job finished
 * since the last run is covered by the next digest, so an auditor's signed coverage lags by at
 * most this much (`lineage verify` names such jobs as pending, not as a problem).
 */
export const LINEAGE_SIGNING_SCHEDULE = "rate(1 hour)";

/**
 * The signer's memory and timeout: each run lists the job summaries and reads those written since
 * the last digest (`writeDigest`), so its time grows with the hour's jobs; Lambda's longest timeout
 * leaves room for a busy hour.
 */
export const LINEAGE_SIGNER_SIZE: FunctionSize = { memory: "512 MB", timeout: "900 seconds" };

/**
 * Signed lineage for the stage: a KMS key of spec ECC_NIST_P256 for SIGN_VERIFY (its private half
 * never leaves KMS; anyone given the public key verifies offline), and the lineage signer, a
 * function EventBridge Scheduler invokes every hour ({@link LINEAGE_SIGNING_SCHEDULE}) that writes
 * the next digest over the jobs finished since the last and signs it with the key
 * (packages/functions/src/lambda/sign-lineage.ts), with exactly the permissions of
 * `lineageSignerPermissions`. Production retains the key when the stage is removed (sst.config.ts),
 * so its digests stay verifiable.
 *
 * @example
 * const { key } = lineageSigning({ bucket, settings }); // `voxtrail lineage verify --bucket B --kms-key-id <key.arn>`
 */
export function lineageSigning({ bucket, settings }: { bucket: sst.aws.Bucket; settings: FunctionSettings }) {
  const key = new aws.kms.Key("LineageSigningKey", {
    description: `Signs the lineage digests of voxtrail stage ${$app.stage}`,
    customerMasterKeySpec: "ECC_NIST_P256",
    keyUsage: "SIGN_VERIFY",
    // KMS's longest wait: a key scheduled for deletion by mistake can be recovered for 30 days.
    deletionWindowInDays: 30,
    policy: settings.scope.apply((scope) => JSON.stringify(accountKeyPolicy(scope))),
  });
  const signer = stageFunction("LineageSigner", settings, {
    entry: "sign-lineage",
    size: LINEAGE_SIGNER_SIZE,
    callsCartesia: false,
    environment: { [FUNCTION_ENVIRONMENT.lineageSigningKey]: key.arn },
    permissions: $util
      .all([settings.scope, bucket.name, key.arn])
      .apply(([scope, bucketName, signingKeyArn]) =>
        lineageSignerPermissions({
          partition: scope.partition,
          bucket: bucketName,
          retainsLineage: settings.retainsLineage,
          signingKeyArn,
        }),
      ),
  });
  const schedule = new sst.aws.CronV2("LineageDigests", {
    function: signer,
    schedule: LINEAGE_SIGNING_SCHEDULE,
    // Only EventBridge Scheduler may assume its role, for the account's default schedule group.
    transform: {
      role: { assumeRolePolicy: settings.scope.apply((scope) => JSON.stringify(scheduleTrustPolicy(scope))) },
    },
  });
  return { key, signer, schedule };
}
