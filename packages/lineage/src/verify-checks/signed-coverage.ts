import type { VerifyCheck } from "./verify-check";

/** With trusted keys: the jobs and records as the store holds them against what the digests signed. */
export const signedCoverage: VerifyCheck = {
  name: "signed-coverage",
  run: ({ coverage }) => coverage?.issues ?? [],
};
