import { mapLimit } from "@voxtrail/core";
import { isLeftover, ownKeyPrefixes } from "../erased-objects";
import { isIssue, issue, type VerifyIssue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/**
 * Every version an erasure recorded as deleted must be gone, and nothing may be under an erased
 * job's own keys (its artifacts, its prompts folder, its report): a run the erasure did not wait
 * for may have written there after it (`erasure-incomplete`).
 */
export const erasureLeftovers: VerifyCheck = {
  name: "erasure-leftovers",
  run: async ({ store, walked, concurrency }) => {
    const recorded = await mapLimit(walked.erasedChecks, concurrency, async ({ erasure, artifact }) =>
      (await isLeftover(store, artifact))
        ? issue(
            "erasure-incomplete",
            artifact.key,
            erasure.jobId,
            `erasure ${erasure.erasureId} recorded this object as deleted, but it exists`,
          )
        : undefined,
    );
    const named = new Set(recorded.filter(isIssue).map((each) => each.key));
    const written = await mapLimit(walked.erased, concurrency, async ({ jobId, erasureId }) => {
      const found = (await Promise.all(ownKeyPrefixes(jobId).map((prefix) => store.list(prefix)))).flat();
      return found
        .filter((key) => !named.has(key))
        .map(
          (key): VerifyIssue =>
            issue(
              "erasure-incomplete",
              key,
              jobId,
              `job ${jobId} was erased (erasure ${erasureId}), but this object of its own is in the store: written after the erasure`,
            ),
        );
    });
    return [...recorded.filter(isIssue), ...written.flat()];
  },
};
