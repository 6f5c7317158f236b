import { checkOutput, missing } from "../verify-artifacts";
import { isIssue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/**
 * Each artifact a successful attempt wrote, against the hash it recorded (`hash-mismatch`,
 * `missing-artifact`); of a job a digest vouches for, only that the listing holds it.
 */
export const outputHashes: VerifyCheck = {
  name: "output-hashes",
  run: async ({ walked, hashing }) => {
    const listed = new Set(await hashing.listed());
    const found = await Promise.all(
      walked.outputs.map(async (output) => {
        const { ref, jobId } = output;
        if (hashing.vouched(output)) return listed.has(ref.key) ? undefined : missing(ref, jobId, ref.kind);
        return checkOutput(output, await hashing.hashOf(output));
      }),
    );
    return found.filter(isIssue);
  },
};
