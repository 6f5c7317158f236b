import type { VerifyCheck } from "./verify-check";

/**
 * Each job's record chain (`checkChain`), and each input of each successful attempt against what
 * the attempt that produced it wrote (`broken-chain`): found while the records were walked.
 */
export const chainsAndLinks: VerifyCheck = {
  name: "chains-and-links",
  run: ({ walked }) => walked.issues,
};
