import { mapLimit, type ObjectStore } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { type HashedObject, type NamedArtifact, sha256Of } from "./verify-artifacts";
import type { Prehash } from "./verify-prehash";

/** An object `verify` re-hashes: its key, its recorded size, and the version to read (a source's). */
interface ToRehash {
  key: string;
  bytes: number;
  versionId?: string | undefined;
}

/**
 * The sha256 and size of each object as read (`undefined`: not there), in the order given. A
 * directory store hashes them all at once on worker threads, beside this thread's work
 * (`DirectoryStore.hashObjects`: each key checked as `getBytes` checks it); any other store's
 * objects are read up to `concurrency` at a time, as {@link sha256Of} reads one.
 *
 * @example
 * const [source] = await rehash(store, [{ key: ref.key, bytes: ref.bytes, versionId: ref.versionId }], 32);
 */
function rehash(
  store: ObjectStore,
  objects: readonly ToRehash[],
  concurrency: number,
): Promise<Array<HashedObject | undefined>> {
  if (store instanceof DirectoryStore) {
    // As sha256Of reads: an empty version id names no version.
    return store.hashObjects(
      objects.map(({ key, versionId }) => ({ key, versionId: versionId || undefined })),
    );
  }
  return mapLimit(objects, concurrency, ({ key, bytes, versionId }) =>
    sha256Of(store, key, bytes, versionId),
  );
}

/** What `verify` re-hashes: everything but reports in one go, under way as soon as it is known. */
export interface RehashPlan {
  /** Jobs whose artifacts and report are checked: neither erased nor vouched for by a digest. */
  checkedJobs: string[];
  /** The checked jobs' reports by key, with their job: hashed on `verify`'s thread, to be checked from the bytes read. */
  reportOf: Map<string, string>;
  /** Whether an output belongs to a job vouched for and the listing covers it: it need only be there. */
  vouched: (output: NamedArtifact) => boolean;
  /** The sources to re-hash: those of jobs not vouched for. */
  sources: NamedArtifact[];
  /** Each output neither vouched for nor a report, and each of `sources`, with its hash as read. */
  hashed: Promise<Map<NamedArtifact, HashedObject | undefined>>;
}

/**
 * Starts re-hashing the artifacts of the jobs `verify` checks (those of `jobIds` neither erased
 * nor `skipped`): every output but the reports, and every source (at its recorded version), in one
 * {@link rehash}; an output under `prehashed`'s prefix is taken from there instead (not listed
 * there: not there). `listedPrefixes` are where the listing vouches for a skipped job's outputs.
 */
export function planRehash(
  store: ObjectStore,
  walked: { outputs: readonly NamedArtifact[]; sources: readonly NamedArtifact[] },
  jobs: { jobIds: readonly string[]; erased: ReadonlySet<string>; skipped: ReadonlySet<string> },
  listedPrefixes: readonly string[],
  concurrency: number,
  prehashed?: Prehash,
): RehashPlan {
  const { jobIds, erased, skipped } = jobs;
  const checkedJobs = jobIds.filter((id) => !erased.has(id) && !skipped.has(id));
  const reportOf = new Map(checkedJobs.map((id) => [keys.report(id), id]));
  const vouched = ({ ref, jobId }: NamedArtifact) =>
    skipped.has(jobId) && listedPrefixes.some((prefix) => ref.key.startsWith(prefix));
  const outputs: NamedArtifact[] = [];
  const early: NamedArtifact[] = [];
  for (const output of walked.outputs) {
    if (vouched(output) || reportOf.has(output.ref.key)) continue;
    (prehashed && output.ref.key.startsWith(prehashed.prefix) ? early : outputs).push(output);
  }
  const sources = walked.sources.filter((source) => !skipped.has(source.jobId));
  const artifacts = [...outputs, ...sources];
  const hashed = Promise.all([
    rehash(
      store,
      // Outputs as the key holds them now, sources at their recorded version.
      [
        ...outputs.map(({ ref }) => ({ key: ref.key, bytes: ref.bytes })),
        ...sources.map(({ ref }) => ({ key: ref.key, bytes: ref.bytes, versionId: ref.versionId })),
      ],
      concurrency,
    ),
    prehashed?.done,
  ]).then(
    ([hashes, before]) =>
      new Map([
        ...early.map((output) => [output, before?.hashes.get(output.ref.key)] as const),
        ...artifacts.map((artifact, index) => [artifact, hashes[index]] as const),
      ]),
  );
  // Awaited once verify's other reads are done: a failure meanwhile is not unhandled.
  hashed.catch(() => undefined);
  return { checkedJobs, reportOf, vouched, sources, hashed };
}
