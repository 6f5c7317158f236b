import type { ObjectStore } from "@voxtrail/core";
import type { ChainHead, ChainRepairSeen } from "./digests/verify-digests";
import type { LineageGraph } from "./lineage-graph";
import { VERIFY_CHECKS } from "./verify-check-list";
import { openVerifyContext } from "./verify-context";
import type { VerifyIssue } from "./verify-issues";
import type { VerifyOptions } from "./verify-options";

export type { VerifyIssue, VerifyProblem } from "./verify-issues";
export { DEFAULT_SIGNING_GRACE_MS, type VerifyOptions } from "./verify-options";

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
    /** The chain's head, for an auditor to keep and give back as `expectHead`. */
    head?: ChainHead;
    /** The digests chain repairs wrote, when there are any. */
    repairs?: ChainRepairSeen[];
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
 * Each check is a module of `VERIFY_CHECKS` over one shared context (`openVerifyContext`), which
 * reads the artifacts through one interface (`VerifyHashing`).
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
  const context = await openVerifyContext(store, lineage, options);
  const found: VerifyIssue[][] = [];
  for (const check of VERIFY_CHECKS) found.push(await check.run(context));
  const issues = found.flat();
  issues.sort((a, b) => (a.key === b.key ? a.problem.localeCompare(b.problem) : a.key < b.key ? -1 : 1));
  // The chain and the summary may both see one changed record: it is one finding.
  const findings = issues.filter((each, index) => !sameFinding(each, issues[index - 1]));
  const { digests, coverage, since, walked } = context;
  const notSigned = new Set(
    findings.filter((each) => each.problem === "job-not-signed").map((each) => each.jobId),
  );
  return {
    ok: findings.length === 0,
    jobs: context.jobIds.length,
    artifactsChecked: context.hashing.artifactsChecked,
    linksChecked: walked.linksChecked,
    erased: walked.erased,
    issues: findings,
    ...(digests && coverage
      ? {
          signatures: {
            digests: digests.digests,
            ...(digests.latestEnd ? { latestEnd: digests.latestEnd } : {}),
            signedJobs: coverage.signed.length,
            pendingJobs: coverage.pending.filter((jobId) => !notSigned.has(jobId)),
            ...(digests.head ? { head: digests.head } : {}),
            ...(digests.repairs.length > 0 ? { repairs: digests.repairs } : {}),
          },
        }
      : {}),
    ...(since ? { incremental: { ...since, skippedJobs: context.skipped.size } } : {}),
  };
}

function sameFinding(a: VerifyIssue, b: VerifyIssue | undefined): boolean {
  return a.problem === b?.problem && a.key === b.key;
}
