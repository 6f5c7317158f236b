import { SourceCheck } from "../verify-artifacts";
import { isIssue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/**
 * Each checked job's source at its recorded version, against its job's hash (`hash-mismatch`,
 * `missing-artifact`, or `source-replaced` by another job's upload: `SourceCheck`).
 */
export const sourceHashes: VerifyCheck = {
  name: "source-hashes",
  run: async ({ walked, hashing }) => {
    const sources = new SourceCheck(walked.sources);
    const found = await Promise.all(
      hashing.sources.map(async (source) => sources.check(source, await hashing.hashOf(source))),
    );
    return found.filter(isIssue);
  },
};
