import type { VerifyCheck } from "./verify-check";

/**
 * Each lineage summary against the records (`checkSummaries`): checked while the context was
 * worked out, as the signed coverage needs them.
 */
export const summaries: VerifyCheck = {
  name: "summaries",
  run: ({ summaries }) => summaries.issues,
};
