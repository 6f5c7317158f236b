import type { VerifyIssue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/**
 * Objects under `artifacts/` and `reports/` that no recorded attempt wrote
 * (`artifact-without-lineage`); an erased job's leftovers are named by its erasure instead.
 */
export const objectsWithoutLineage: VerifyCheck = {
  name: "objects-without-lineage",
  run: async ({ graph, hashing, erasedJobs }) => {
    const found: VerifyIssue[] = [];
    for (const key of await hashing.listed()) {
      if (graph.writers.has(key)) continue;
      const jobId = /^(?:artifacts\/([^/]+)\/|reports\/([^/]+)\.json$)/.exec(key)?.slice(1).find(Boolean);
      if (jobId && erasedJobs.has(jobId)) continue;
      found.push({
        problem: "artifact-without-lineage",
        key,
        ...(jobId ? { jobId } : {}),
        detail: "no activity record says it wrote this object",
      });
    }
    return found;
  },
};
