import { BATCH_RESULTS_PREFIX, KEY_FOLDERS, keys } from "../packages/workflow/src";
import type { StageConfig } from "./stage-config";

/** The key prefixes whose lifecycle the stage configures (the key layout: packages/workflow/src/key-layout.ts). */
const LIFECYCLE_PREFIXES = {
  incoming: KEY_FOLDERS.incoming,
  artifacts: KEY_FOLDERS.artifacts,
  reports: KEY_FOLDERS.reports,
  lineageSummaries: keys.lineageSummaries,
} as const satisfies Record<
  keyof Pick<StageConfig["storage"], "incoming" | "artifacts" | "reports" | "lineageSummaries">,
  string
>;

/**
 * Prefixes that follow another prefix's rule. `claims/` expires with `incoming/`: a claim guards an
 * upload against a second run, and an upload can only run while it is in the bucket (Ingest reads
 * it), so the claim has nothing left to guard once the upload expires; it must not go sooner, or a
 * late duplicate delivery would run the job again. It holds pointers only (bucket, key, ETag,
 * execution). `batch-results/` (a batch's per-voicemail outcomes, pointers only) expires with
 * `reports/`, the other per-job summaries.
 */
const FOLLOWING_PREFIXES = {
  claims: { prefix: KEY_FOLDERS.claims, follows: "incoming" },
  batchResults: { prefix: BATCH_RESULTS_PREFIX, follows: "reports" },
} as const satisfies Record<string, { prefix: string; follows: keyof typeof LIFECYCLE_PREFIXES }>;

/** What a protected lineage prefix denies to every principal: removing any version of a record. */
const LINEAGE_DENIED_ACTIONS = ["s3:DeleteObjectVersion", "s3:BypassGovernanceRetention"];

/**
 * The stage's bucket: voicemails land under `incoming/`, artifacts, lineage and reports are written
 * beside them, and every object event goes to EventBridge, where the pipeline's rule picks the
 * ones it wants.
 *
 * What sst.aws.Bucket already does: public access blocked, a bucket policy denying any request
 * without TLS (`aws:SecureTransport` false), versioning when asked. What is added here:
 * - SSE-S3 (AES256) as the explicit default encryption. Not SSE-KMS: a customer key would need
 *   `kms:GenerateDataKey`/`kms:Decrypt` in every function's policy (stacks/permissions.ts) and a
 *   key policy, for no boundary this pipeline declares.
 * - Lifecycle per prefix from the stage's configuration (`incoming/`, `artifacts/`, `reports/`,
 *   `lineage-summaries/`; `claims/` with `incoming/` and `batch-results/` with `reports/`, see
 *   {@link FOLLOWING_PREFIXES}): Standard-IA after N days, expiry after M days, noncurrent
 *   versions expired after K days, and incomplete multipart uploads aborted bucket-wide. `lineage/` has no
 *   rule: activity records never expire (and noncurrent versions there are never removed).
 * - `protectLineage`: the bucket policy denies `s3:DeleteObjectVersion` (and bypassing governance
 *   retention) on `lineage/*` to every principal, so no version of an activity record can be
 *   removed without first changing the bucket policy, an act CloudTrail records. A plain delete
 *   only adds a delete marker; the record stays as a version. The handlers never delete lineage.
 * - `objectLock`: S3 Object Lock with a default retention, which S3 applies to every new object
 *   version in the bucket, not per prefix. Object Lock needs versioning first ("Configuring S3
 *   Object Lock", https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-configure.html),
 *   and sst creates its versioning resource inside an `apply`, where nothing outside can wait for
 *   it. So Object Lock is switched on by the bucket resource itself (`objectLockEnabled`, through
 *   sst's `transform.bucket`): S3 creates the bucket with Object Lock and versioning together. The
 *   default retention rule is a BucketObjectLockConfiguration that depends on that bucket resource.
 *   Object Lock is never disabled again. The provider treats a change of `objectLockEnabled` as a
 *   replacement (hashicorp/terraform-provider-aws#36529), so turning it on for a stage whose
 *   bucket already exists would replace the bucket (production's `protect` refuses): enable it
 *   there by hand (versioning, then PutObjectLockConfiguration) and `sst refresh` before
 *   deploying. Because it is bucket-wide, caller audio and artifacts are locked too; the stage
 *   configuration refuses a retention longer than their expiry, so the lock never keeps caller
 *   data beyond its own rule. Per-prefix Object Lock would need retention set per object by the
 *   writer (or a dedicated lineage bucket), which the handlers do not do today.
 *
 * @example
 * const { bucket } = storage(config);
 */
export function storage(config: StageConfig) {
  const settings = config.storage;
  const bucket = new sst.aws.Bucket("Voicemail", {
    versioning: true,
    cors: false,
    // Object Lock from the bucket's creation, with the versioning it needs (see above).
    ...(settings.objectLock ? { transform: { bucket: { objectLockEnabled: true } } } : {}),
    policy: settings.protectLineage
      ? [
          {
            effect: "deny",
            principals: "*",
            actions: LINEAGE_DENIED_ACTIONS,
            // Where activity records live: one per stage attempt, immutable.
            paths: [`${KEY_FOLDERS.lineage}*`],
          },
        ]
      : [],
  });
  new aws.s3.BucketServerSideEncryptionConfiguration("VoicemailEncryption", {
    bucket: bucket.name,
    rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: "AES256" } }],
  });
  new aws.s3.BucketLifecycleConfiguration("VoicemailLifecycle", {
    bucket: bucket.name,
    rules: [
      ...[
        ...Object.entries(LIFECYCLE_PREFIXES).map(([name, prefix]) => ({
          name,
          prefix,
          rule: settings[name as keyof typeof LIFECYCLE_PREFIXES],
        })),
        ...Object.entries(FOLLOWING_PREFIXES).map(([name, { prefix, follows }]) => ({
          name,
          prefix,
          rule: settings[follows],
        })),
      ].map(({ name, prefix, rule }) => {
        return {
          id: `${name}-lifecycle`,
          status: "Enabled",
          filter: { prefix },
          ...(rule.transitionToInfrequentAccessAfterDays === undefined
            ? {}
            : {
                transitions: [
                  { days: rule.transitionToInfrequentAccessAfterDays, storageClass: "STANDARD_IA" },
                ],
              }),
          ...(rule.expireAfterDays === undefined ? {} : { expiration: { days: rule.expireAfterDays } }),
          noncurrentVersionExpiration: { noncurrentDays: settings.noncurrentVersionsExpireAfterDays },
        };
      }),
      {
        id: "abort-incomplete-uploads",
        status: "Enabled",
        filter: {},
        abortIncompleteMultipartUpload: { daysAfterInitiation: settings.abortIncompleteUploadsAfterDays },
      },
    ],
  });
  if (settings.objectLock) {
    new aws.s3.BucketObjectLockConfiguration(
      "VoicemailObjectLock",
      {
        bucket: bucket.name,
        objectLockEnabled: "Enabled",
        rule: { defaultRetention: { mode: settings.objectLock.mode, days: settings.objectLock.days } },
      },
      // The bucket resource itself, created with Object Lock (and so versioning) enabled.
      { dependsOn: [bucket.nodes.bucket] },
    );
  }
  new aws.s3.BucketNotification("VoicemailEvents", { bucket: bucket.name, eventbridge: true });
  return { bucket };
}
