import { mapLimit } from "@voxtrail/core";
import { isLeftover } from "../erased-objects";
import { isIssue, issue } from "../verify-issues";
import type { VerifyCheck } from "./verify-check";

/** Every version an erasure recorded as deleted must be gone (`erasure-incomplete`). */
export const erasureLeftovers: VerifyCheck = {
  name: "erasure-leftovers",
  run: async ({ store, walked, concurrency }) => {
    const found = await mapLimit(walked.erasedChecks, concurrency, async ({ erasure, artifact }) =>
      (await isLeftover(store, artifact))
        ? issue(
            "erasure-incomplete",
            artifact.key,
            erasure.jobId,
            `erasure ${erasure.erasureId} recorded this object as deleted, but it exists`,
          )
        : undefined,
    );
    return found.filter(isIssue);
  },
};
