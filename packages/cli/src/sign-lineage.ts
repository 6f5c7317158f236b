import { type ObjectStore, systemErrorMeaning } from "@voxtrail/core";
import { defaultSigningKeyPath, LocalSigner, writeDigest } from "@voxtrail/lineage";
import type { JobResult } from "@voxtrail/local";

/**
 * Signs the lineage of `jobs`, the jobs a local run made (or an operator vouches for): the next
 * digest over their summaries, never another job's, with the local P-256 key (created on first use
 * at `defaultSigningKeyPath()`, outside the store, so that someone who can write the store cannot
 * sign), and says so on `out`. The digest names the index generation current as it signs: call it
 * after indexing. With no job it signs nothing, unless `index` asks it to sign the index generation
 * current if no digest names it yet (after a reindex). Signing that fails is reported there by its error's name and
 * message (never key material), and the run's outcome stands. Resolves to whether it signed (or
 * had nothing to add).
 *
 * @example
 * await signLineage(runtime.store, ["vm-0123456789abcdef0123"], process.stderr);
 */
export async function signLineage(
  store: ObjectStore,
  jobs: readonly string[],
  out: NodeJS.WritableStream,
  options: { index?: boolean } = {},
): Promise<boolean> {
  if (jobs.length === 0 && !options.index) {
    out.write("lineage: no job of this run ended, nothing to sign\n");
    return true;
  }
  try {
    const signer = await LocalSigner.loadOrCreate(defaultSigningKeyPath());
    const written = await writeDigest(store, signer, { jobs });
    const fingerprint = (await signer.fingerprint()).slice(0, 16);
    const generation = written?.index ? ` and index generation ${written.index.generation}` : "";
    out.write(
      written
        ? `lineage signed: ${written.key} covers ${written.jobs} job(s)${generation}, key ${fingerprint}\n`
        : jobs.length === 0
          ? `lineage signed already: the index generation is signed (key ${fingerprint})\n`
          : `lineage signed already: no job to add to the digests (key ${fingerprint})\n`,
    );
    return true;
  } catch (error) {
    // A failed system call by its meaning (DiskFull, ...), never with the path Node puts in its message.
    const { name, message } =
      systemErrorMeaning(error) ?? (error instanceof Error ? error : new Error(String(error)));
    out.write(`lineage NOT signed: ${name}: ${message}\n`);
    return false;
  }
}

/**
 * What this run signs: the jobs of its own inputs that ended, by its executions or by an earlier
 * run's (a duplicate found completed: a run killed before it signed leaves its jobs to the run
 * that is given the same files again). Never a job of another input.
 */
export function jobsRun(results: JobResult[]): string[] {
  return results.flatMap((result) =>
    result.status === "SUCCEEDED" || result.status === "FAILED" || result.duplicate?.reason === "completed"
      ? [result.jobId]
      : [],
  );
}
