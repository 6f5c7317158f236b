import type { ObjectStore } from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import { type DigestVerification, verifyDigests } from "./digests/verify-digests";
import { VerifyNeedsRecords } from "./errors";
import type { LineageGraph } from "./lineage-graph";
import { liveRunsSince } from "./local-runs";
import { checkSignedCoverage } from "./signed-coverage";
import { startHashing, type VerifyHashing } from "./verify-hashing";
import { DEFAULT_SIGNING_GRACE_MS, type VerifyOptions } from "./verify-options";
import { prehash } from "./verify-prehash";
import { type SincePoint, signedBefore, sincePoint } from "./verify-since";
import { checkSummaries, readSummaries } from "./verify-summaries";
import { type Walk, walkJobs } from "./verify-walk";

/** What every verify check is given: the lineage, what was worked out from it, and the hashing. */
export interface VerifyContext {
  store: ObjectStore;
  graph: LineageGraph;
  /** Reads in flight at once. */
  concurrency: number;
  /** The jobs verified (the one asked for, or every job the records or erasures name). */
  jobIds: string[];
  /** The records walked: chain and link findings, and the artifacts they name. */
  walked: Walk;
  erasedJobs: ReadonlySet<string>;
  /** Each summary checked against the records. */
  summaries: ReturnType<typeof checkSummaries>;
  /** With trusted keys: the signed digests, and what they cover of the store as it is. */
  digests: DigestVerification | undefined;
  coverage: ReturnType<typeof checkSignedCoverage> | undefined;
  /**
   * With trusted keys: before when a finished job must be signed (now less the grace period), when
   * the earliest run in progress on the store started (its jobs are pending), and the head an
   * auditor expects.
   */
  signing: SigningExpectations | undefined;
  /** With `since`: where re-hashing starts, and the jobs it leaves to the digests. */
  since: SincePoint | undefined;
  skipped: ReadonlySet<string>;
  /** The one way a check reads the artifacts and reports (see {@link VerifyHashing}). */
  hashing: VerifyHashing;
}

/** What absence of a signature is measured against (see {@link VerifyContext.signing}). */
export interface SigningExpectations {
  signedBy: string;
  liveRunsSince: string | undefined;
  expectHead: VerifyOptions["expectHead"];
}

/**
 * Works out what `verify`'s checks share, starting the reads as early as they are known: without
 * `since`, a directory store's `artifacts/` is hashed while the records are still being read
 * (`prehash`) and the re-hashing starts before the summaries are checked; with `since`, once the
 * signed digests say which jobs they vouch for. A graph read from summaries is refused with
 * `VerifyNeedsRecords`; a `since` that cannot be used, `VerifySinceInvalid` or `NoVerifiedDigest`.
 *
 * @example
 * const context = await openVerifyContext(store, readLineage(store).then(LineageGraph.of), {});
 */
export async function openVerifyContext(
  store: ObjectStore,
  lineage: LineageGraph | Promise<LineageGraph>,
  options: VerifyOptions,
): Promise<VerifyContext> {
  const concurrency = options.concurrency ?? 32;
  const prefixes = {
    artifacts: options.jobId ? keys.artifactPrefix(options.jobId) : KEY_FOLDERS.artifacts,
    reports: options.jobId ? keys.report(options.jobId) : KEY_FOLDERS.reports,
  };
  // Without `since` every artifact is re-hashed: a directory store starts now, while the records
  // may still be being read.
  const early = options.since === undefined ? prehash(store, prefixes.artifacts) : undefined;
  // Each summary read once, and parsed on another core where there are many.
  const summaryReads = readSummaries(store, { jobId: options.jobId, concurrency });
  const graph = await lineage;
  if (graph.summarized > 0) {
    throw new VerifyNeedsRecords(
      "verify needs the lineage read from the activity records (readLineage without from: summaries)",
    );
  }
  const digests = options.trustedKeys ? await verifyDigests(store, options.trustedKeys) : undefined;
  const signing = digests && {
    signedBy: new Date(
      (options.now ?? new Date()).getTime() - (options.signingGraceMs ?? DEFAULT_SIGNING_GRACE_MS),
    ).toISOString(),
    liveRunsSince: await liveRunsSince(store),
    expectHead: options.expectHead,
  };
  const since = options.since === undefined ? undefined : sincePoint(options.since, digests);
  const jobIds = options.jobId
    ? [options.jobId]
    : [...new Set([...graph.jobs.keys(), ...graph.erasures.keys()])];
  const walked = walkJobs(graph, jobIds);
  const erasedJobs = new Set(walked.erased.map((entry) => entry.jobId));
  const hashingFor = (skipped: ReadonlySet<string>) =>
    startHashing(store, walked, { jobIds, erased: erasedJobs, skipped }, prefixes, concurrency, early);
  // Without `since` no job is vouched for: the re-hashing starts now, beside the summaries' checks.
  const started = since === undefined ? hashingFor(new Set()) : undefined;

  // Each summary checked against the records, then against the signed digests.
  const summaries = checkSummaries(await summaryReads, graph, { states: digests !== undefined });
  const coverage = digests && checkSignedCoverage(graph, digests, summaries.summaries, options.jobId);
  const flagged = new Set(
    [...walked.issues, ...summaries.issues, ...(coverage?.issues ?? [])].flatMap((each) => each.jobId ?? []),
  );
  const skipped =
    since && coverage ? signedBefore(since, coverage, summaries.summaries, flagged) : new Set<string>();
  return {
    store,
    graph,
    concurrency,
    jobIds,
    walked,
    erasedJobs,
    summaries,
    digests,
    coverage,
    signing,
    since,
    skipped,
    hashing: started ?? hashingFor(skipped),
  };
}
