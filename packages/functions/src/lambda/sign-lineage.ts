import { KmsSigner } from "@voxtrail/lineage";
import { FUNCTION_ENVIRONMENT } from "@voxtrail/workflow";
import { signLineageDigest } from "../handlers/sign-lineage-digest";
import { requiredEnv, stageStore } from "./lambda-dependencies";
import { scheduledEntry } from "./scheduled-entry";

/**
 * Lambda entry point of the lineage signer, which EventBridge Scheduler invokes every hour
 * (stacks/lineage-signing.ts): it writes and signs the next lineage digest with the stage's KMS
 * key, and logs what it covered. A failure is logged by name and fails the invocation. Its
 * dependencies: the stage's bucket (digests written with the stage's lineage retention, when its
 * bucket has Object Lock) and its KMS signing key, from the environment; the signer reads the
 * key's public half once per execution environment.
 */
export const handler = scheduledEntry(
  "SignLineage",
  "lineage digest",
  async () => ({
    store: stageStore(process.env),
    signer: new KmsSigner({ keyId: requiredEnv(process.env, FUNCTION_ENVIRONMENT.lineageSigningKey) }),
  }),
  signLineageDigest,
);
