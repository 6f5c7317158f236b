import { createHash, type KeyObject } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import {
  type ArtifactRef,
  type ErasedArtifact,
  type ErasureRecord,
  isSchemaMismatch,
  JobReport,
  LineageSummary,
  mapLimit,
  ObjectNotFound,
  type ObjectStore,
  readJson,
  SOURCE_KINDS,
} from "@voxtrail/core";
import { KEY_FOLDERS, keys } from "@voxtrail/workflow";
import { type DigestProblem, verifyDigests } from "./digests/verify-digests";
import { isLeftover } from "./erased-objects";
import { VerifyNeedsRecords } from "./errors";
import type { LineageGraph } from "./lineage-graph";
import type { StoredActivity } from "./lineage-snapshot";
import { checkChain, checkSummaryHashes, type RecordProblem } from "./record-integrity";
import { type CoverageProblem, checkSignedCoverage } from "./signed-coverage";

/** What can be wrong with the lineage of a store. */
export type VerifyProblem =
  | "hash-mismatch"
  | "missing-artifact"
  | "artifact-without-lineage"
  | "broken-chain"
  | "unreadable-record"
  | "erasure-incomplete"
  | "summary-mismatch"
  | "source-replaced"
  | RecordProblem
  | DigestProblem
  | CoverageProblem;

/** One finding: the problem, the object it concerns, and a sentence saying what was expected. */
export interface VerifyIssue {
  problem: VerifyProblem;
  key: string;
  jobId?: string;
  detail: string;
}

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
 * (`verifyDigests`, `checkSignedCoverage`). A graph read from summaries is refused with
 * `VerifyNeedsRecords`.
 *
 * @example
 * const result = await verify(store, LineageGraph.of(await readLineage(store)));
 * if (!result.ok) for (const issue of result.issues) console.log(issue.problem, issue.key);
 */
export async function verify(
  store: ObjectStore,
  graph: LineageGraph,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  if (graph.summarized > 0) {
    throw new VerifyNeedsRecords(
      "verify needs the lineage read from the activity records (readLineage without from: summaries)",
    );
  }
  const concurrency = options.concurrency ?? 32;
  const issues: VerifyIssue[] = graph.unreadable.map(({ key, problem }) => ({
    problem: "unreadable-record",
    key,
    detail: `lineage record ${problem}`,
  }));
  const jobIds = options.jobId
    ? [options.jobId]
    : [...new Set([...graph.jobs.keys(), ...graph.erasures.keys()])];
  const erased: VerifyResult["erased"] = [];
  const expected = new Map<string, { ref: ArtifactRef; jobId: string }>();
  // Each job's own source, by job: two jobs may name one key (different uploads to it).
  const sources = new Map<string, { ref: ArtifactRef & { versionId?: string }; jobId: string }>();
  let linksChecked = 0;
  const erasedChecks: Array<{ erasure: ErasureRecord; artifact: ErasedArtifact }> = [];

  for (const jobId of jobIds) {
    // Erasure keeps the records, so an erased job's chain is checked too.
    issues.push(...checkChain(jobId, graph.jobs.get(jobId) ?? []));
    const erasure = graph.erasures.get(jobId);
    if (erasure) {
      erased.push({ jobId, erasureId: erasure.erasureId, erasedAt: erasure.erasedAt });
      for (const artifact of erasure.erased) erasedChecks.push({ erasure, artifact });
      continue;
    }
    const activities = graph.jobs.get(jobId) ?? [];
    if (activities.length === 0) {
      issues.push({
        problem: "broken-chain",
        key: keys.lineagePrefix(jobId),
        jobId,
        detail: "the job has no activity records",
      });
      continue;
    }
    for (const activity of activities) {
      if (activity.record.outcome !== "succeeded") continue;
      for (const input of activity.record.inputs) {
        linksChecked++;
        const issue = checkLink(graph, activity, input);
        if (issue) issues.push(issue);
        else if (SOURCE_KINDS.includes(input.kind))
          sources.set(`${jobId}\u0000${input.key}`, { ref: input, jobId });
      }
      for (const output of activity.record.outputs) {
        if (graph.producers.get(output.key)?.activity === activity)
          expected.set(output.key, { ref: output, jobId });
      }
    }
  }

  // Objects under artifacts/ and reports/ that no recorded attempt wrote.
  const erasedJobs = new Set(erased.map((entry) => entry.jobId));
  const listed = options.jobId
    ? [
        ...(await store.list(keys.artifactPrefix(options.jobId))),
        ...(await store.list(keys.report(options.jobId))),
      ]
    : [...(await store.list(KEY_FOLDERS.artifacts)), ...(await store.list(KEY_FOLDERS.reports))];
  for (const key of listed) {
    if (graph.writers.has(key)) continue;
    const jobId = /^(?:artifacts\/([^/]+)\/|reports\/([^/]+)\.json$)/.exec(key)?.slice(1).find(Boolean);
    if (jobId && erasedJobs.has(jobId)) continue;
    issues.push({
      problem: "artifact-without-lineage",
      key,
      ...(jobId ? { jobId } : {}),
      detail: "no activity record says it wrote this object",
    });
  }

  // Re-hash every expected artifact; check that erased ones are gone.
  const hashed = await mapLimit([...expected.values()], concurrency, async ({ ref, jobId }) => {
    const actual = await sha256Of(store, ref.key, ref.bytes);
    if (actual === undefined) {
      return issue(
        "missing-artifact",
        ref.key,
        jobId,
        `${ref.kind} recorded with sha256 ${ref.sha256} is not in the store`,
      );
    }
    if (actual.sha256 !== ref.sha256) {
      return issue(
        "hash-mismatch",
        ref.key,
        jobId,
        `${ref.kind} should have sha256 ${ref.sha256} (${ref.bytes} bytes), has ${actual.sha256} (${actual.bytes} bytes)`,
      );
    }
    return undefined;
  });
  const sourceIssues = await mapLimit([...sources.values()], concurrency, ({ ref, jobId }) =>
    checkSource(store, ref, jobId, [...sources.values()]),
  );
  const leftovers = await mapLimit(erasedChecks, concurrency, async ({ erasure, artifact }) =>
    (await isLeftover(store, artifact))
      ? issue(
          "erasure-incomplete",
          artifact.key,
          erasure.jobId,
          `erasure ${erasure.erasureId} recorded this object as deleted, but it exists`,
        )
      : undefined,
  );
  issues.push(...hashed.filter(isIssue), ...sourceIssues.filter(isIssue), ...leftovers.filter(isIssue));
  issues.push(
    ...(await checkReports(
      store,
      graph,
      jobIds.filter((id) => !erasedJobs.has(id)),
      concurrency,
    )),
  );

  issues.push(...(await checkSummaries(store, graph, options.jobId, concurrency)));
  let signatures: VerifyResult["signatures"];
  if (options.trustedKeys) {
    const digests = await verifyDigests(store, options.trustedKeys);
    const coverage = await checkSignedCoverage(store, graph, digests, options.jobId);
    issues.push(...digests.issues, ...coverage.issues);
    signatures = {
      digests: digests.digests,
      ...(digests.latestEnd ? { latestEnd: digests.latestEnd } : {}),
      signedJobs: coverage.signed,
      pendingJobs: coverage.pending,
    };
  }

  issues.sort((a, b) => (a.key === b.key ? a.problem.localeCompare(b.problem) : a.key < b.key ? -1 : 1));
  // The chain and the summary may both see one changed record: it is one finding.
  const findings = issues.filter((each, index) => !sameFinding(each, issues[index - 1]));
  return {
    ok: findings.length === 0,
    jobs: jobIds.length,
    artifactsChecked: expected.size + sources.size,
    linksChecked,
    erased,
    issues: findings,
    ...(signatures ? { signatures } : {}),
  };
}

/**
 * A job's source against that job's own hash: its recorded version where the store keeps versions,
 * else whatever the key holds now. Bytes another job recorded as its source at the same key are a
 * later upload that replaced this job's (`source-replaced`, naming both jobs); any other bytes are
 * a `hash-mismatch`.
 */
async function checkSource(
  store: ObjectStore,
  ref: ArtifactRef & { versionId?: string },
  jobId: string,
  sources: Array<{ ref: ArtifactRef; jobId: string }>,
): Promise<VerifyIssue | undefined> {
  const actual = await sha256Of(store, ref.key, ref.bytes, ref.versionId);
  const what = `${ref.kind}${ref.versionId ? ` version ${ref.versionId}` : ""}`;
  if (actual === undefined) {
    return issue(
      "missing-artifact",
      ref.key,
      jobId,
      `${what} recorded with sha256 ${ref.sha256} is not in the store`,
    );
  }
  if (actual.sha256 === ref.sha256) return undefined;
  const replacer = ref.versionId
    ? undefined
    : sources.find((other) => other.ref.key === ref.key && other.ref.sha256 === actual.sha256);
  if (replacer) {
    return issue(
      "source-replaced",
      ref.key,
      jobId,
      `job ${jobId}'s ${ref.kind} (sha256 ${ref.sha256}) was replaced by the upload job ${replacer.jobId} read: the store keeps no versions`,
    );
  }
  return issue(
    "hash-mismatch",
    ref.key,
    jobId,
    `${what} should have sha256 ${ref.sha256} (${ref.bytes} bytes), has ${actual.sha256} (${actual.bytes} bytes)`,
  );
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

/** Each report's artifacts must be the ones the lineage recorded. */
async function checkReports(
  store: ObjectStore,
  graph: LineageGraph,
  jobIds: string[],
  concurrency: number,
): Promise<VerifyIssue[]> {
  const found = await mapLimit(jobIds, concurrency, async (jobId): Promise<VerifyIssue[]> => {
    const key = keys.report(jobId);
    if (!graph.producers.has(key)) return [];
    let report: JobReport;
    try {
      report = await readJson(store, key, JobReport);
    } catch (error) {
      if (isSchemaMismatch(error)) {
        return [issue("broken-chain", key, jobId, "the report does not match its schema")];
      }
      return []; // Missing or altered: the re-hash already names it.
    }
    return report.artifacts.flatMap((ref) => {
      const producer = graph.producers.get(ref.key);
      if (!producer) {
        return SOURCE_KINDS.includes(ref.kind) || graph.readers.has(ref.key)
          ? []
          : [
              issue(
                "artifact-without-lineage",
                ref.key,
                jobId,
                `the report lists this ${ref.kind}, but no activity record wrote it`,
              ),
            ];
      }
      return producer.ref.sha256 === ref.sha256
        ? []
        : [
            issue(
              "broken-chain",
              ref.key,
              jobId,
              `the report says sha256 ${ref.sha256}, the lineage ${producer.ref.sha256}`,
            ),
          ];
    });
  });
  return found.flat();
}

/**
 * Each lineage summary against the records: the same record keys, and each copied record equal to
 * the one in the store. A summary is never trusted here; it is only checked.
 */
async function checkSummaries(
  store: ObjectStore,
  graph: LineageGraph,
  jobId: string | undefined,
  concurrency: number,
): Promise<VerifyIssue[]> {
  const summaryKeys = jobId
    ? (await store.head(keys.lineageSummary(jobId)))
      ? [keys.lineageSummary(jobId)]
      : []
    : await store.list(keys.lineageSummaries);
  const unreadableKeys = new Set(graph.unreadable.map((entry) => entry.key));
  const found = await mapLimit(
    summaryKeys,
    concurrency,
    async (key): Promise<VerifyIssue[] | VerifyIssue | undefined> => {
      const summaryJob = key.slice(keys.lineageSummaries.length, -".json".length);
      const mismatch = (detail: string) => issue("summary-mismatch", key, summaryJob, detail);
      let summary: LineageSummary;
      try {
        summary = await readJson(store, key, LineageSummary);
      } catch (error) {
        if (isSchemaMismatch(error)) return mismatch("the lineage summary does not match its schema");
        if (error instanceof SyntaxError) return mismatch("the lineage summary is not JSON");
        if (error instanceof ObjectNotFound) return undefined;
        throw error;
      }
      if (summary.jobId !== summaryJob) return mismatch(`the lineage summary names job ${summary.jobId}`);
      // Bytes first: a record changed, moved or deleted since the summary hashed it.
      const hashIssues = checkSummaryHashes(summaryJob, summary, graph.jobs.get(summaryJob) ?? []);
      if (hashIssues.length > 0) return hashIssues;
      const records = new Map((graph.jobs.get(summaryJob) ?? []).map((entry) => [entry.key, entry.record]));
      for (const { key: recordKey, record } of summary.records) {
        if (!records.has(recordKey)) {
          return unreadableKeys.has(recordKey)
            ? mismatch(`the lineage summary copies ${recordKey}, which is no longer readable`)
            : mismatch(`the lineage summary copies ${recordKey}, which the store does not hold`);
        }
        if (!sameRecord(records.get(recordKey), record)) {
          return mismatch(`the lineage summary's copy of ${recordKey} differs from the record`);
        }
        records.delete(recordKey);
      }
      const [extra] = records.keys();
      return extra === undefined
        ? undefined
        : mismatch(
            `the lineage summary leaves out ${extra}${records.size > 1 ? ` and ${records.size - 1} more` : ""}`,
          );
    },
  );
  return found.flat().filter(isIssue);
}

/**
 * Whether two parsed records hold the same: equal serialisations settle it quickly; otherwise
 * (a difference, or only the order of keys differs) the deep comparison decides.
 */
function sameRecord(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b) || isDeepStrictEqual(a, b);
}

/** Objects recorded at most this size are read in one piece; larger ones are streamed. */
const WHOLE_READ_BYTES = 1 << 20;

/**
 * The sha256 and size of the object; `undefined` when it is not there. An object recorded as small
 * is read in one piece (far less overhead per object than a stream: a store holds tens of
 * thousands of small artifacts); a large one streams through the hash.
 */
async function sha256Of(
  store: ObjectStore,
  key: string,
  recordedBytes: number,
  versionId?: string,
): Promise<{ sha256: string; bytes: number } | undefined> {
  const hash = createHash("sha256");
  const version = versionId ? { versionId } : undefined;
  let bytes = 0;
  try {
    if (recordedBytes <= WHOLE_READ_BYTES) {
      const body = await store.getBytes(key, version);
      hash.update(body);
      bytes = body.byteLength;
    } else {
      for await (const chunk of await store.get(key, version)) {
        hash.update(chunk);
        bytes += chunk.byteLength;
      }
    }
  } catch (error) {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  }
  return { sha256: hash.digest("hex"), bytes };
}

function sameFinding(a: VerifyIssue, b: VerifyIssue | undefined): boolean {
  return a.problem === b?.problem && a.key === b.key;
}

function issue(problem: VerifyProblem, key: string, jobId: string, detail: string): VerifyIssue {
  return { problem, key, jobId, detail };
}

function isIssue(value: VerifyIssue | undefined): value is VerifyIssue {
  return value !== undefined;
}
