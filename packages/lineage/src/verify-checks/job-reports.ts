import { mapLimit } from "@voxtrail/core";
import { checkReport } from "../verify-reports";
import type { VerifyCheck } from "./verify-check";

/**
 * Each checked job's report against the lineage (`checkReport`), from the bytes hashed where they
 * were read in one piece; a missing report is the output check's finding.
 */
export const jobReports: VerifyCheck = {
  name: "job-reports",
  run: async ({ store, graph, hashing, concurrency }) => {
    const found = await mapLimit(hashing.checkedJobs, concurrency, async (jobId) => {
      const body = await hashing.reportBody(jobId);
      if (body === null) return [];
      return checkReport(body ? { getBytes: async () => body } : store, graph, jobId);
    });
    return found.flat();
  },
};
