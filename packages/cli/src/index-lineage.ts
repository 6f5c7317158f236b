import { type ObjectStore, systemErrorMeaning } from "@voxtrail/core";
import { compactLineageIndex } from "@voxtrail/lineage/edge-index";

/**
 * Brings the store's lineage edge index up to date with the jobs a local run finished (what the
 * stacks' scheduled compactor does in the cloud), and says so on `out`. A compaction that fails is
 * reported there by its error's name and message, and the run's outcome stands: the records are
 * the source of truth, and `voxtrail lineage` reads the summaries the index lacks.
 *
 * @example
 * await indexLineage(runtime.store, process.stderr);
 */
export async function indexLineage(store: ObjectStore, out: NodeJS.WritableStream): Promise<void> {
  try {
    const update = await compactLineageIndex(store);
    out.write(
      `lineage indexed: ${update.jobsWritten} job(s) added or updated, ${update.jobs} in the index\n`,
    );
  } catch (error) {
    // A failed system call by its meaning (DiskFull, ...), never with the path Node puts in its message.
    const { name, message } =
      systemErrorMeaning(error) ?? (error instanceof Error ? error : new Error(String(error)));
    out.write(`lineage NOT indexed: ${name}: ${message}\n`);
  }
}
