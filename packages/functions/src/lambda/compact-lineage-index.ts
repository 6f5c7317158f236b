import { updateLineageIndex } from "../handlers/compact-lineage-index";
import { stageStore } from "./lambda-dependencies";
import { scheduledEntry } from "./scheduled-entry";

/**
 * Lambda entry point of the lineage index compactor, which EventBridge Scheduler invokes every 15
 * minutes (stacks/lineage-index.ts): it compacts the jobs finished since the last run into the
 * lineage edge index and points the Athena symlinks at the latest generation's files, and logs
 * counts (no key, no job id). A failure is logged by name and fails the invocation; the next run
 * picks up where it stopped. Its dependency is the stage's bucket, from the environment.
 */
export const handler = scheduledEntry(
  "CompactLineageIndex",
  "lineage index",
  async () => ({ store: stageStore(process.env) }),
  updateLineageIndex,
);
