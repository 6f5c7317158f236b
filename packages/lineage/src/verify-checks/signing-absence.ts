import { keys } from "@voxtrail/workflow";
import { LINEAGE_DIGESTS_PREFIX, sequenceKey } from "../digests/digest-file";
import { issue, type VerifyIssue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/**
 * With trusted keys, absence as a finding: a finished job no digest covers whose summary was
 * written before the grace period and before any run still in progress on the store began
 * (`job-not-signed`); no digest at all while such a job exists (`digests-missing`); and, given the
 * head an auditor kept, a chain that ends before it (`digest-head-missing`: the newest digests
 * were deleted) or holds other bytes at its sequence (`digest-head-replaced`). A job still running
 * (no summary) is never one.
 */
export const signingAbsence: VerifyCheck = {
  name: "signing-absence",
  run: ({ digests, coverage, signing, summaries }) => {
    if (!digests || !coverage || !signing) return [];
    const found: VerifyIssue[] = [];
    for (const jobId of coverage.pending) {
      const writtenAt = summaries.summaries.get(keys.lineageSummary(jobId))?.writtenAt;
      if (writtenAt === undefined || writtenAt >= signing.signedBy) continue;
      if (signing.liveRunsSince !== undefined && writtenAt >= signing.liveRunsSince) continue;
      found.push(
        issue(
          "job-not-signed",
          keys.lineageSummary(jobId),
          jobId,
          `job ${jobId} finished at ${writtenAt}, before ${signing.signedBy} (the signing grace period), and no digest covers it as it is: its signer never signed it, or its digest is gone`,
        ),
      );
    }
    if (digests.digests === 0 && found.length > 0) {
      found.push({
        problem: "digests-missing",
        key: LINEAGE_DIGESTS_PREFIX,
        detail: `the store holds ${found.length} finished job(s) past the signing grace period and no lineage digest at all: the digests were deleted, or nothing ever signed`,
      });
    }
    const expected = signing.expectHead;
    if (expected) {
      const head = digests.head;
      const expectedKey = sequenceKey(expected.sequence);
      if (head?.sequence === undefined || head.sequence < expected.sequence) {
        found.push({
          problem: "digest-head-missing",
          key: expectedKey,
          detail: `the expected head is sequence ${expected.sequence}; the valid chain ends at ${head ? `${head.key}${head.sequence === undefined ? "" : ` (sequence ${head.sequence})`}` : "no digest"}: the digests after it were deleted`,
        });
      } else if (expected.sha256 && digests.sha256BySequence.get(expected.sequence) !== expected.sha256) {
        found.push({
          problem: "digest-head-replaced",
          key: expectedKey,
          detail: `the expected head, sequence ${expected.sequence}, had sha256 ${expected.sha256}; the digest there now has ${digests.sha256BySequence.get(expected.sequence) ?? "no readable bytes"}`,
        });
      }
    }
    return found;
  },
};
