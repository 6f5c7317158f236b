import { mapLimit, type ObjectStore } from "@voxtrail/core";
import { type HashedObject, type NamedArtifact, sha256Of } from "./verify-artifacts";
import type { Prehash } from "./verify-prehash";
import { planRehash } from "./verify-rehash";
import type { Walk } from "./verify-walk";

/**
 * The one way `verify`'s checks read the store's artifacts: what to check, the listing, and each
 * artifact's hash as read. The speed work stays behind it: everything is started as soon as it is
 * known (a directory store's objects hashed on worker threads, under `artifacts/` even before the
 * records were read: `prehash`; the reports on this thread, their bodies kept to be checked), and
 * each answer is the promise of what was started.
 */
export interface VerifyHashing {
  /** Jobs whose artifacts and report are checked: neither erased nor vouched for by a digest. */
  readonly checkedJobs: readonly string[];
  /** The sources to re-hash: those of the checked jobs. */
  readonly sources: readonly NamedArtifact[];
  /** Artifacts re-hashed: the sources and every output not vouched for. */
  readonly artifactsChecked: number;
  /** Whether an output belongs to a job a digest vouches for, and the listing covers it: it need only be there. */
  vouched(output: NamedArtifact): boolean;
  /** The objects under `artifacts/` and `reports/` (or the one job's). */
  listed(): Promise<string[]>;
  /** An output not vouched for, or one of {@link sources}, hashed as read (`undefined`: not there). */
  hashOf(artifact: NamedArtifact): Promise<HashedObject | undefined>;
  /**
   * A checked job's report as hashed: its bytes, `null` when it is not there, `undefined` when
   * it was not read in one piece here (streamed, or not an output the lineage names).
   */
  reportBody(jobId: string): Promise<Buffer | null | undefined>;
}

/**
 * Starts reading what `verify` checks of the jobs `jobIds` (neither erased nor `skipped`) and
 * answers from it: see {@link VerifyHashing}.
 *
 * @example
 * const hashing = startHashing(store, walked, { jobIds, erased, skipped }, prefixes, 32, prehash(store, "artifacts/"));
 * await hashing.hashOf(walked.outputs[0]);
 */
export function startHashing(
  store: ObjectStore,
  walked: Walk,
  jobs: { jobIds: readonly string[]; erased: ReadonlySet<string>; skipped: ReadonlySet<string> },
  prefixes: { artifacts: string; reports: string },
  concurrency: number,
  early: Prehash | undefined,
): VerifyHashing {
  const plan = planRehash(store, walked, jobs, [prefixes.artifacts, prefixes.reports], concurrency, early);
  const listed = Promise.all([
    early ? early.done.then(({ listed }) => listed) : store.list(prefixes.artifacts),
    store.list(prefixes.reports),
  ]).then((lists) => lists.flat());
  // Reports are hashed here, each kept whole to be checked from the bytes read.
  const reportOutputs = walked.outputs.flatMap((output) => {
    const jobId = plan.vouched(output) ? undefined : plan.reportOf.get(output.ref.key);
    return jobId === undefined ? [] : [{ output, jobId }];
  });
  const reports = mapLimit(reportOutputs, concurrency, async ({ output }) =>
    sha256Of(store, output.ref.key, output.ref.bytes),
  ).then((hashes) =>
    reportOutputs.map(({ output, jobId }, index) => ({ output, jobId, actual: hashes[index] })),
  );
  const reportByOutput = reports.then((read) => new Map(read.map((report) => [report.output, report])));
  const reportByJob = reports.then((read) => new Map(read.map((report) => [report.jobId, report])));
  // Awaited once the checks ask: a failure meanwhile is not unhandled.
  listed.catch(() => undefined);
  reportByOutput.catch(() => undefined);
  reportByJob.catch(() => undefined);
  return {
    checkedJobs: plan.checkedJobs,
    sources: plan.sources,
    artifactsChecked: plan.sources.length + walked.outputs.filter((output) => !plan.vouched(output)).length,
    vouched: plan.vouched,
    listed: () => listed,
    hashOf: async (artifact) => {
      const report = (await reportByOutput).get(artifact);
      return report ? report.actual : (await plan.hashed).get(artifact);
    },
    reportBody: async (jobId) => {
      const report = (await reportByJob).get(jobId);
      if (report === undefined) return undefined;
      return report.actual === undefined ? null : report.actual.body;
    },
  };
}
