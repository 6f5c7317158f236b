import type { VerifyCheck } from "./verify-check";

/** With trusted keys: each lineage digest's signature and chain (`verifyDigests`). */
export const signedDigests: VerifyCheck = {
  name: "signed-digests",
  run: ({ digests }) => digests?.issues ?? [],
};
