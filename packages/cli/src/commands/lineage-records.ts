/**
 * The `voxtrail lineage` subcommands that read or rewrite a store's records and digests themselves
 * (verify, erase, reindex, sign, repair-chain), loaded only for them: the questions answered from
 * the index start without their AWS clients.
 */

import { SFNClient } from "@aws-sdk/client-sfn";
import { TranscribeClient } from "@aws-sdk/client-transcribe";
import type { ObjectStore } from "@voxtrail/core";
import {
  defaultSigningKeyPath,
  erase,
  LineageGraph,
  LocalSigner,
  readLineage,
  repairForkedChain,
  StepFunctionsLiveness,
  transcribeJobDeleter,
  type VerifyOptions,
  verify,
} from "@voxtrail/lineage";
import { checkLineageIndex, reindexLineage } from "@voxtrail/lineage/edge-index";
import { RunningExecutions } from "@voxtrail/local/running-executions";
import { keys } from "@voxtrail/workflow";
import { erasureReport, indexCheckReport, reindexReport, verifyReport } from "../lineage-views";
import { signLineage } from "../sign-lineage";
import { UsageError } from "../usage-error";
import { type LineageOptions, type Out, trustedKeysOf } from "./lineage-options";

/** `lineage reindex`: the edge index rebuilt from the records; a local store's new generation signed. */
export async function reindex(store: ObjectStore, options: LineageOptions, out: Out): Promise<number> {
  const started = performance.now();
  const update = await reindexLineage(store);
  out(update, () => reindexReport(update, performance.now() - started));
  // A local store's new generation is signed here, as a run signs after it indexes (to stderr:
  // stdout is the report); a bucket's, by the stage's signer within its hour.
  if (options.bucket === undefined) await signLineage(store, [], process.stderr, { index: true });
  return 0;
}

/** verify and erase: they check, or delete by, the records themselves. */
export async function checkOrErase(
  sub: "verify" | "erase",
  store: ObjectStore,
  target: string | undefined,
  options: LineageOptions,
  out: Out,
): Promise<number> {
  const started = performance.now();
  const jobId = sub === "verify" ? options.job : undefined;
  // Under way while the keys are found; verify hashes the artifacts while it is.
  const lineage = readLineage(store, { ...(jobId ? { jobId } : {}), from: "records" }).then(LineageGraph.of);
  lineage.catch(() => undefined); // Awaited below, after the keys: not unhandled meanwhile.
  if (sub === "erase") {
    const graph = await lineage;
    // A running job of the scope is waited for, so it cannot write after the erasure: in a
    // bucket its Step Functions execution (DescribeExecution), in a local store the run on this
    // machine. In a bucket, the chain's Transcribe jobs are deleted too; a local store's stand-in
    // jobs ended with their run.
    const result = await erase(store, graph, target as string, {
      liveness: options.bucket ? new StepFunctionsLiveness(new SFNClient({})) : new RunningExecutions(),
      waiting: {
        onWait: (jobId) =>
          process.stderr.write(`erase: waiting for job ${jobId}, which is still running, to end\n`),
      },
      ...(options.bucket ? { deleteServiceJob: transcribeJobDeleter(new TranscribeClient({})) } : {}),
    });
    out(result, () => erasureReport(result));
    return 0;
  }
  const trusted = await trustedKeysOf(options);
  const since =
    options.since === undefined
      ? {}
      : { since: options.since === "last-digest" ? ("last-digest" as const) : new Date(options.since) };
  const result = await verify(store, lineage, {
    ...(jobId ? { jobId } : {}),
    ...(trusted.keys.length > 0 ? { trustedKeys: trusted.keys } : {}),
    ...since,
    ...signingExpectations(options),
  });
  // The edge index is derived: every row it holds must be what the records give.
  const index = await checkLineageIndex(store, (await lineage).activities, jobId ? { jobId } : {});
  out({ ...result, trustedKeys: trusted.from, index }, () =>
    [
      verifyReport(result, trusted.from),
      ...(result.incremental
        ? [
            `since ${result.incremental.since}${result.incremental.digestKey ? ` (${result.incremental.digestKey})` : ""}: ${result.incremental.skippedJobs} signed job(s) before it not re-hashed`,
          ]
        : []),
      indexCheckReport(index),
      `(${Math.round(performance.now() - started)} ms)`,
    ].join("\n"),
  );
  return result.ok && index.findings.length === 0 ? 0 : 1;
}

/**
 * `--grace` and `--expect-head` as verify's options. A bucket's default grace is verify's (two
 * runs of the stage's signer); a local store's is none, as each run signs as it ends (a run still
 * in progress keeps its jobs pending).
 */
function signingExpectations(options: LineageOptions): Pick<VerifyOptions, "signingGraceMs" | "expectHead"> {
  const grace = options.grace ?? (options.bucket === undefined ? "0" : undefined);
  const seconds = grace === undefined ? undefined : Number(grace);
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds >= 0)) {
    throw new UsageError(`--grace must be a number of seconds, 0 or more, got ${JSON.stringify(grace)}`);
  }
  const head = options["expect-head"];
  const match = head === undefined ? undefined : /^([1-9]\d*)(?::([0-9a-f]{64}))?$/.exec(head);
  if (head !== undefined && !match) {
    throw new UsageError(
      `--expect-head must be SEQUENCE or SEQUENCE:SHA256 as verify printed the head, got ${JSON.stringify(head)}`,
    );
  }
  return {
    ...(seconds === undefined ? {} : { signingGraceMs: seconds * 1000 }),
    ...(match
      ? { expectHead: { sequence: Number(match[1]), ...(match[2] ? { sha256: match[2] } : {}) } }
      : {}),
  };
}

/**
 * `lineage sign --job ID`: an operator vouches for one finished job of a local store that no run
 * signed (a run killed before it could), with this machine's key. A bucket is signed by its
 * stage's signer only.
 */
export async function signVouched(store: ObjectStore, options: LineageOptions): Promise<number> {
  if (options.bucket !== undefined) {
    throw new UsageError("lineage sign signs a local store (--store DIR); a stage's signer signs its bucket");
  }
  if (options.job === undefined) throw new UsageError("lineage sign needs --job ID: the job you vouch for");
  if (!(await store.head(keys.lineageSummary(options.job)))) {
    throw new UsageError(
      `lineage sign: job ${JSON.stringify(options.job)} has no lineage summary: it has not finished`,
    );
  }
  return (await signLineage(store, [options.job], process.stdout)) ? 0 : 1;
}

/**
 * `lineage repair-chain`: re-signs a local store's digest chain from where two runs forked it
 * (before digests had sequences), with this machine's key, recording what it replaced.
 */
export async function repairChain(store: ObjectStore, options: LineageOptions, out: Out): Promise<number> {
  if (options.bucket !== undefined) {
    throw new UsageError(
      "lineage repair-chain re-signs with this machine's key: a local store (--store DIR) only",
    );
  }
  const repair = await repairForkedChain(store, await LocalSigner.loadOrCreate(defaultSigningKeyPath()));
  out(repair ?? { repaired: false }, () =>
    repair
      ? [
          `repaired: ${repair.replaced.length} digest(s) after ${repair.forkedAfter ?? "the chain's start"} replaced by ${repair.digest.key}, which covers ${repair.digest.jobs} job(s) again`,
          `the replaced digests are kept under ${repair.keptUnder}`,
          ...(repair.changedSince.length > 0
            ? [
                `not signed again, their summary changed since: ${repair.changedSince.join(", ")} (verify names them)`,
              ]
            : []),
        ].join("\n")
      : "nothing to repair: the digest chain has no broken link",
  );
  return 0;
}
