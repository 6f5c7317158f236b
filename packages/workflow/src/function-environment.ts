/**
 * The environment variables a stage function reads besides the providers' (`PROVIDER_ENVIRONMENT`),
 * and the secret it may be linked to: the stacks write them, Lambda reads them.
 */
export const FUNCTION_ENVIRONMENT = {
  stage: "VOXTRAIL_STAGE",
  bucket: "VOXTRAIL_BUCKET",
  eventBus: "VOXTRAIL_EVENT_BUS",
  boundaryPolicy: "VOXTRAIL_BOUNDARY_POLICY",
  language: "VOXTRAIL_LANGUAGE",
  /** The languages the stage takes, comma-separated (`en-US,es-US`): its stage config's `languages`. */
  languages: "VOXTRAIL_LANGUAGES",
  /**
   * `MODE:DAYS` (e.g. `COMPLIANCE:30`) when the stage's bucket has Object Lock: the retention each
   * object written under `RETAINED_PREFIXES` gets.
   */
  lineageRetention: "VOXTRAIL_LINEAGE_RETENTION",
  /** The ARN of the stage's KMS key (ECC_NIST_P256, SIGN_VERIFY) the lineage signer signs digests with. */
  lineageSigningKey: "VOXTRAIL_LINEAGE_SIGNING_KEY",
} as const;

/** The `sst.Secret` that holds the Cartesia API key (`npx sst secret set CartesiaApiKey ... --stage NAME`). */
export const CARTESIA_SECRET = "CartesiaApiKey";
