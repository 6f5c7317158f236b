import { BATCH_RESULTS_PREFIX, KEY_FOLDERS, keys, RETAINED_PREFIXES } from "@voxtrail/workflow";
import { ATHENA_RESULTS_PREFIX, LINEAGE_ATHENA_PREFIX } from "./permissions";
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

/**
 * How long Athena's query results are kept under `athena-results/` (stacks/lineage-index.ts): an
 * auditor reads a result as the query ends (GetQueryResults); a week leaves room to page through it
 * again. Their noncurrent versions (none are written over) go after a day.
 */
export const ATHENA_RESULTS_EXPIRE_AFTER_DAYS = 7;

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
 *   rule: activity records never expire (and noncurrent versions there are never removed). Athena's
 *   query results (`athena-results/`) expire after {@link ATHENA_RESULTS_EXPIRE_AFTER_DAYS} days, and
 *   noncurrent versions of the lineage index's symlinks (`lineage-athena/`) and of the jobs' notes
 *   for it (`lineage-index/pending/`, with their expired delete markers) after a day.
 * - `protectLineage`: the bucket policy denies `s3:DeleteObjectVersion` (and bypassing governance
 *   retention) on the audit trail (`RETAINED_PREFIXES`: activity records, lineage summaries,
 *   signed digests, erasure records) to every principal, so no version of them can be removed
 *   without first changing the bucket policy, an act CloudTrail records. A plain delete only adds
 *   a delete marker; the object stays as a version. The handlers never delete lineage.
 * - `objectLock`: S3 Object Lock, for the audit trail only. The bucket is created with Object
 *   Lock enabled (`objectLockEnabled` through sst's `transform.bucket`: S3 then turns versioning
 *   on with it; Object Lock needs versioning first, "Configuring S3 Object Lock",
 *   https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock-configure.html) but with no
 *   default retention, which S3 would apply to every new object version, caller audio included,
 *   and which would then block an erasure request. Instead each object under `RETAINED_PREFIXES`
 *   (activity records, lineage summaries, signed digests, erasure records) is written with its
 *   own retention (`ObjectLockMode` and `ObjectLockRetainUntilDate` on the PutObject; the
 *   functions get `VOXTRAIL_LINEAGE_RETENTION` and `s3:PutObjectRetention` on those prefixes), so
 *   caller data can always be erased and the audit trail cannot be. Object Lock is never disabled
 *   again. The provider treats a change of `objectLockEnabled` as a replacement
 *   (hashicorp/terraform-provider-aws#36529), so turning it on for a stage whose bucket already
 *   exists would replace the bucket (production's `protect` refuses): enable it there by hand
 *   (versioning, then PutObjectLockConfiguration with `ObjectLockEnabled` and no rule) and
 *   `sst refresh` before deploying. A bucket that already has a default retention rule keeps
 *   applying it to caller data until that rule is removed by hand.
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
            // The audit trail: records (one per stage attempt, immutable), summaries, digests, erasures.
            paths: RETAINED_PREFIXES.map((prefix) => `${prefix}*`),
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
        // The index's Athena symlinks: the compactor deletes the version each write replaces; one a
        // raced write leaves behind goes after a day.
        id: "lineageAthena-lifecycle",
        status: "Enabled",
        filter: { prefix: LINEAGE_ATHENA_PREFIX },
        noncurrentVersionExpiration: { noncurrentDays: 1 },
      },
      {
        // Jobs' notes for the lineage index: the compactor deletes each (a plain delete, which in
        // a versioned bucket keeps the note as a noncurrent version behind a delete marker); both
        // go within a day or two.
        id: "lineageIndexPending-lifecycle",
        status: "Enabled",
        filter: { prefix: keys.lineageIndexPending },
        expiration: { expiredObjectDeleteMarker: true },
        noncurrentVersionExpiration: { noncurrentDays: 1 },
      },
      {
        id: "athenaResults-lifecycle",
        status: "Enabled",
        filter: { prefix: ATHENA_RESULTS_PREFIX },
        expiration: { days: ATHENA_RESULTS_EXPIRE_AFTER_DAYS },
        noncurrentVersionExpiration: { noncurrentDays: 1 },
      },
      {
        id: "abort-incomplete-uploads",
        status: "Enabled",
        filter: {},
        abortIncompleteMultipartUpload: { daysAfterInitiation: settings.abortIncompleteUploadsAfterDays },
      },
    ],
  });
  new aws.s3.BucketNotification("VoicemailEvents", { bucket: bucket.name, eventbridge: true });
  return { bucket };
}
