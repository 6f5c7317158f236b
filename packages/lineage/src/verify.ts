import type { KeyObject } from "node:crypto";
import {
  type ArtifactRef,
  type ErasedArtifact,
  type ErasureRecord,
  mapLimit,
  type ObjectStore,
  SOURCE_KINDS,
} from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import { verifyDigests } from "./digests/verify-digests";
import { isLeftover } from "./erased-objects";
import { VerifyNeedsRecords } from "./errors";
import type { LineageGraph } from "./lineage-graph";
import type { StoredActivity } from "./lineage-snapshot";
import { checkChain } from "./record-integrity";
import { checkSignedCoverage } from "./signed-coverage";
import { checkOutput, missing, type NamedArtifact, SourceCheck, sha256Of } from "./verify-artifacts";
import { isIssue, issue, type VerifyIssue } from "./verify-issues";
import { prehash } from "./verify-prehash";
import { planRehash } from "./verify-rehash";
import { checkReport } from "./verify-reports";
import { signedBefore, sincePoint } from "./verify-since";
import { checkSummaries, readSummaries } from "./verify-summaries";

export type { VerifyIssue, VerifyProblem } from "./verify-issues";

/** The outcome of {@link verify}. */
export interface VerifyResult {
  ok: boolean;
  jobs: number;
  /** Artifacts re-hashed. */
  artifactsChecked: number;
  /** Links checked: each input of each successful attempt against what its producer wrote. */
  linksChecked: number;
  /** Jobs whose chain was erased, with the erasure's id: reported as erased, not broken. */
  erased: Array<{ jobId: string; erasureId: string; erasedAt: string }>;
  issues: VerifyIssue[];
  /** With trusted keys: the signed digests, and how many jobs they cover as the store holds them. */
  signatures?: {
    digests: number;
    /** When the latest valid digest was written. */
    latestEnd?: string;
    signedJobs: number;
    /** Jobs no digest covers yet (running, or finished after the latest digest). */
    pendingJobs: string[];
  };
  /** With `since`: where re-hashing started, and how many jobs' artifacts it left to the digests. */
  incremental?: {
    /** The time `since` stood for (ISO 8601). */
    since: string;
    /** With `since: "last-digest"`: the digest whose end that is. */
    digestKey?: string;
    /** Jobs signed as they are before `since`, whose artifacts and report were not read. */
    skippedJobs: number;
  };
}

/** Options of {@link verify}. */
export interface VerifyOptions {
  /** Only this job. */
  jobId?: string;
  /**
   * The public keys whose signatures on lineage digests to trust (the local signing key's, or the
   * stage's KMS key's): with them the records are also checked against the signed digests.
   */
  trustedKeys?: KeyObject[];
  /**
   * Incremental: re-hash the artifacts (and re-read the report) only of jobs whose lineage summary
   * was written at or after this time, or that the signed digests do not cover as they are now
   * (pending, changed, added, or with any finding); `"last-digest"` is the end of the latest digest
   * that verifies with `trustedKeys`. Every record, summary, link and digest is still checked, and
   * every summary against the hash a digest signed: a covered job's records, summary and the
   * artifact hashes they name are vouched for by the signature, and its artifacts and report are
   * only looked for in the listing. Needs `trustedKeys` (else `VerifySinceInvalid`); with
   * `"last-digest"` and no digest that verifies, `NoVerifiedDigest`.
   */
  since?: Date | "last-digest";
  /** Reads in flight at once (default 32). */
  concurrency?: number;
}

/**
 * Re-hashes every artifact the lineage names and checks every link: each artifact's bytes against
 * the hash its producer recorded, each input of each successful attempt against what the attempt
 * that produced it wrote, each report's artifacts against the lineage, and that every object under
 * `artifacts/` and `reports/` was written by a recorded attempt. Erased jobs are checked against
 * their erasure record instead: every erased version must be gone. Every record's chain link and
 * every summary's record hashes must match the records (`checkChain`, `checkSummaryHashes`), and
 * each summary must copy exactly the records the graph was built from (else `summary-mismatch`).
 * With `trustedKeys`, the signed digests and what they signed are checked too
 * (`verifyDigests`, `checkSignedCoverage`); with `since` as well, only jobs after it are re-hashed.
 * Each object is read once, large ones streamed through the hash: summaries and reports here, up
 * to `concurrency` at a time; the other artifacts all at once, which a directory store hashes on
 * worker threads beside the checks here (`DirectoryStore.hashObjects`). Given the graph still
 * to come (a promise), a full verify of a directory store hashes everything under `artifacts/`
 * while the records are read (`prehash`). A graph read from summaries is refused with
 * `VerifyNeedsRecords`.
 *
 * @example
 * // The artifacts are hashed on other cores while this one reads the records.
 * const result = await verify(store, readLineage(store).then(LineageGraph.of));
 * if (!result.ok) for (const issue of result.issues) console.log(issue.problem, issue.key);
 *
 * @example
 * // Hourly: what the last verified digest does not vouch for, and every signature.
 * const trustedKeys = [await signer.publicKey()];
 * const result = await verify(store, graph, { trustedKeys, since: "last-digest" });
 * result.incremental; // { since: "2026-12-02T07:00:00.123Z", digestKey: "lineage-digests/…", skippedJobs: 9958 }
 */
export async function verify(
  store: ObjectStore,
  lineage: LineageGraph | Promise<LineageGraph>,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const concurrency = options.concurrency ?? 32;
  const artifactsPrefix = options.jobId ? keys.artifactPrefix(options.jobId) : KEY_FOLDERS.artifacts;
  // Without `since` every artifact is re-hashed: a directory store starts now, while the records
  // may still be being read.
  const early = options.since === undefined ? prehash(store, artifactsPrefix) : undefined;
  // Each summary read once, and parsed on another core where there are many.
  const summaryReads = readSummaries(store, { jobId: options.jobId, concurrency });
  const graph = await lineage;
  if (graph.summarized > 0) {
    throw new VerifyNeedsRecords(
      "verify needs the lineage read from the activity records (readLineage without from: summaries)",
    );
  }
  const digests = options.trustedKeys ? await verifyDigests(store, options.trustedKeys) : undefined;
  const since = options.since === undefined ? undefined : sincePoint(options.since, digests);
  const unreadable = graph.unreadable.map(({ key, problem }) => ({
    problem: "unreadable-record" as const,
    key,
    detail: `lineage record ${problem}`,
  }));
  const jobIds = options.jobId
    ? [options.jobId]
    : [...new Set([...graph.jobs.keys(), ...graph.erasures.keys()])];
  const walked = walkJobs(graph, jobIds);
  const erasedJobs = new Set(walked.erased.map((entry) => entry.jobId));
  const reportsPrefix = options.jobId ? keys.report(options.jobId) : KEY_FOLDERS.reports;
  const listedPrefixes = [artifactsPrefix, reportsPrefix];
  const plan = (skipped: ReadonlySet<string>) =>
    planRehash(store, walked, { jobIds, erased: erasedJobs, skipped }, listedPrefixes, concurrency, early);
  // Without `since` no job is vouched for: the re-hashing starts now, beside the summaries' checks.
  const started = since === undefined ? plan(new Set()) : undefined;

  // Each summary checked against the records, then against the signed digests.
  const { issues: summaryIssues, summaries } = checkSummaries(await summaryReads, graph, {
    states: digests !== undefined,
  });
  const coverage = digests && checkSignedCoverage(graph, digests, summaries, options.jobId);
  const flagged = new Set(
    [...walked.issues, ...summaryIssues, ...(coverage?.issues ?? [])].flatMap((each) => each.jobId ?? []),
  );
  const skipped = since && coverage ? signedBefore(since, coverage, summaries, flagged) : new Set<string>();

  const { checkedJobs, reportOf, vouched, sources: sourcesToHash, hashed } = started ?? plan(skipped);

  // Objects under artifacts/ and reports/ that no recorded attempt wrote.
  const listed = (
    await Promise.all([
      early ? early.done.then(({ listed }) => listed) : store.list(artifactsPrefix),
      store.list(reportsPrefix),
    ])
  ).flat();
  const withoutLineage = unwritten(graph, listed, erasedJobs);

  // Re-hash what is not vouched for: reports here, checked from the bytes hashed, while the rest
  // is hashed in one go; of the rest, what the listing covers need only be there.
  const reportIssues = new Map<string, VerifyIssue[]>();
  const reportChecks = new Map<NamedArtifact, VerifyIssue | undefined>();
  const reportOutputs = walked.outputs.flatMap((output) => {
    const reportJob = vouched(output) ? undefined : reportOf.get(output.ref.key);
    return reportJob === undefined ? [] : [{ output, reportJob }];
  });
  await mapLimit(reportOutputs, concurrency, async ({ output, reportJob }) => {
    const actual = await sha256Of(store, output.ref.key, output.ref.bytes);
    // A report streamed (too large to keep) is read again below.
    if (actual === undefined || actual.body) {
      const body = actual?.body;
      reportIssues.set(
        reportJob,
        body ? await checkReport({ getBytes: async () => body }, graph, reportJob) : [],
      );
    }
    reportChecks.set(output, checkOutput(output, actual));
  });
  const hashes = await hashed;
  const listedKeys = new Set(listed);
  let artifactsChecked = sourcesToHash.length;
  const outputIssues = walked.outputs.map((output) => {
    const { ref, jobId } = output;
    if (vouched(output)) return listedKeys.has(ref.key) ? undefined : missing(ref, jobId, ref.kind);
    artifactsChecked++;
    return reportChecks.has(output) ? reportChecks.get(output) : checkOutput(output, hashes.get(output));
  });
  const sources = new SourceCheck(walked.sources);
  const sourceIssues = sourcesToHash.map((source) => sources.check(source, hashes.get(source)));
  const leftovers = await mapLimit(walked.erasedChecks, concurrency, async ({ erasure, artifact }) =>
    (await isLeftover(store, artifact))
      ? issue(
          "erasure-incomplete",
          artifact.key,
          erasure.jobId,
          `erasure ${erasure.erasureId} recorded this object as deleted, but it exists`,
        )
      : undefined,
  );
  const reports = await mapLimit(
    checkedJobs,
    concurrency,
    async (jobId) => reportIssues.get(jobId) ?? checkReport(store, graph, jobId),
  );

  // In the order the checks have always reported in: of two findings of one problem on one key,
  // the first is kept.
  const issues: VerifyIssue[] = [
    ...unreadable,
    ...walked.issues,
    ...withoutLineage,
    ...outputIssues.filter(isIssue),
    ...sourceIssues.filter(isIssue),
    ...leftovers.filter(isIssue),
    ...reports.flat(),
    ...summaryIssues,
    ...(digests?.issues ?? []),
    ...(coverage?.issues ?? []),
  ];
  issues.sort((a, b) => (a.key === b.key ? a.problem.localeCompare(b.problem) : a.key < b.key ? -1 : 1));
  // The chain and the summary may both see one changed record: it is one finding.
  const findings = issues.filter((each, index) => !sameFinding(each, issues[index - 1]));
  return {
    ok: findings.length === 0,
    jobs: jobIds.length,
    artifactsChecked,
    linksChecked: walked.linksChecked,
    erased: walked.erased,
    issues: findings,
    ...(digests && coverage
      ? {
          signatures: {
            digests: digests.digests,
            ...(digests.latestEnd ? { latestEnd: digests.latestEnd } : {}),
            signedJobs: coverage.signed.length,
            pendingJobs: coverage.pending,
          },
        }
      : {}),
    ...(since ? { incremental: { ...since, skippedJobs: skipped.size } } : {}),
  };
}

/** What the records alone show, and what of the store to read. */
interface Walk {
  /** Chain and link findings. */
  issues: VerifyIssue[];
  erased: VerifyResult["erased"];
  erasedChecks: Array<{ erasure: ErasureRecord; artifact: ErasedArtifact }>;
  /** Per key, what its latest successful producer wrote. */
  outputs: NamedArtifact[];
  /** Each job's own source, by job: two jobs may name one key (different uploads to it). */
  sources: NamedArtifact[];
  linksChecked: number;
}

/**
 * Walks the jobs' records: each job's chain, each input of each successful attempt against what
 * its producer wrote; and collects the artifacts to re-hash and the erased objects to look for.
 */
function walkJobs(graph: LineageGraph, jobIds: string[]): Walk {
  const walk: Walk = { issues: [], erased: [], erasedChecks: [], outputs: [], sources: [], linksChecked: 0 };
  const outputs = new Map<string, NamedArtifact>();
  const sources = new Map<string, NamedArtifact>();
  for (const jobId of jobIds) {
    // Erasure keeps the records, so an erased job's chain is checked too.
    walk.issues.push(...checkChain(jobId, graph.jobs.get(jobId) ?? []));
    const erasure = graph.erasures.get(jobId);
    if (erasure) {
      walk.erased.push({ jobId, erasureId: erasure.erasureId, erasedAt: erasure.erasedAt });
      for (const artifact of erasure.erased) walk.erasedChecks.push({ erasure, artifact });
      continue;
    }
    const activities = graph.jobs.get(jobId) ?? [];
    if (activities.length === 0) {
      walk.issues.push(
        issue("broken-chain", keys.lineagePrefix(jobId), jobId, "the job has no activity records"),
      );
      continue;
    }
    for (const activity of activities) {
      if (activity.record.outcome !== "succeeded") continue;
      for (const input of activity.record.inputs) {
        walk.linksChecked++;
        const found = checkLink(graph, activity, input);
        if (found) walk.issues.push(found);
        else if (SOURCE_KINDS.includes(input.kind))
          sources.set(`${jobId}\u0000${input.key}`, { ref: input, jobId });
      }
      for (const output of activity.record.outputs) {
        if (graph.producers.get(output.key)?.activity === activity)
          outputs.set(output.key, { ref: output, jobId });
      }
    }
  }
  walk.outputs = [...outputs.values()];
  walk.sources = [...sources.values()];
  return walk;
}

/** The listed objects no recorded attempt wrote (an erased job's leftovers are named by its erasure). */
function unwritten(graph: LineageGraph, listed: string[], erasedJobs: ReadonlySet<string>): VerifyIssue[] {
  const found: VerifyIssue[] = [];
  for (const key of listed) {
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
}

/** An input of a successful attempt: a source, or exactly what the attempt that produced it wrote. */
function checkLink(
  graph: LineageGraph,
  activity: StoredActivity,
  input: ArtifactRef,
): VerifyIssue | undefined {
  const { record } = activity;
  const step = `${record.stage} attempt ${record.attempt} (${activity.key})`;
  const producer = graph.producers.get(input.key);
  if (!producer) {
    if (SOURCE_KINDS.includes(input.kind)) return undefined;
    return issue(
      "broken-chain",
      input.key,
      record.jobId,
      `${step} read this ${input.kind}, but no successful attempt wrote it`,
    );
  }
  if (producer.ref.sha256 !== input.sha256) {
    return issue(
      "broken-chain",
      input.key,
      record.jobId,
      `${step} read sha256 ${input.sha256}, but ${producer.activity.record.stage} wrote ${producer.ref.sha256}`,
    );
  }
  return undefined;
}

function sameFinding(a: VerifyIssue, b: VerifyIssue | undefined): boolean {
  return a.problem === b?.problem && a.key === b.key;
}
