import { SOURCE_KINDS } from "@voxtrail/core";
import { issue, type VerifyIssue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/**
 * Each artifact key, and each source version, is one job's own: a job's outputs live under its own
 * id and a job is one upload (one object version). Two jobs not erased naming the same output key
 * as written by them, or reading the same source version as their own upload, is
 * `ownership-shared`: one of them was forged, and an erasure of one would reach the other.
 */
export const ownership: VerifyCheck = {
  name: "ownership",
  run: ({ graph, jobIds, erasedJobs }) => {
    const owners = new Map<string, Set<string>>();
    const claim = (what: string, jobId: string) =>
      owners.set(what, (owners.get(what) ?? new Set()).add(jobId));
    for (const jobId of jobIds) {
      if (erasedJobs.has(jobId)) continue;
      for (const { record } of graph.jobs.get(jobId) ?? []) {
        if (record.outcome !== "succeeded") continue;
        for (const output of record.outputs) claim(output.key, jobId);
        for (const input of record.inputs) {
          const versionId = "versionId" in input ? input.versionId : undefined;
          if (SOURCE_KINDS.includes(input.kind) && versionId !== undefined)
            claim(`${input.key}\u0000${versionId}`, jobId);
        }
      }
    }
    const found: VerifyIssue[] = [];
    for (const [what, jobs] of owners) {
      if (jobs.size < 2) continue;
      const [key, versionId] = what.split("\u0000") as [string, string | undefined];
      const sorted = [...jobs].sort();
      found.push(
        issue(
          "ownership-shared",
          key,
          sorted[0] as string,
          `${versionId ? `version ${versionId} of this source is read as their own upload` : "this key is written as their own output"} by ${jobs.size} jobs (${sorted.join(", ")}), where only one job can own it: one of them was forged`,
        ),
      );
    }
    return found;
  },
};
