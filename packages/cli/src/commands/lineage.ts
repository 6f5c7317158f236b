import { SFNClient } from "@aws-sdk/client-sfn";
import { SSMClient } from "@aws-sdk/client-ssm";
import { TranscribeClient } from "@aws-sdk/client-transcribe";
import type { ObjectStore } from "@voxtrail/core";
import {
  defaultSigningKeyPath,
  erase,
  jobIdOfArtifactName,
  LineageGraph,
  LocalSigner,
  openLineageEvents,
  openLineageStore,
  postToDataZone,
  readLineage,
  repairForkedChain,
  StepFunctionsLiveness,
  transcribeJobDeleter,
  type VerifyOptions,
  verify,
} from "@voxtrail/lineage";
import { checkLineageIndex, type IndexTable, reindexLineage } from "@voxtrail/lineage/edge-index";
import { RunningExecutions } from "@voxtrail/local/running-executions";
import { keys } from "@voxtrail/workflow";
import { openAthenaIndex } from "../lineage-index/athena-index";
import { type DuckDbIndex, openDuckDbIndex } from "../lineage-index/duckdb-index";
import { indexAnswers, type LineageAnswers, recordAnswers } from "../lineage-index/lineage-answers";
import {
  boundariesTable,
  erasureReport,
  impactTable,
  indexCheckReport,
  reindexReport,
  traceTree,
  verifyReport,
} from "../lineage-views";
import { signLineage } from "../sign-lineage";
import { readStageResources } from "../stage/stage-lookup";
import { storeDirectory } from "../store-option";
import { trustedKeys } from "../trusted-keys";
import { UsageError } from "../usage-error";

/** Options of `voxtrail lineage`. */
export interface LineageOptions {
  store: string;
  bucket?: string | undefined;
  stage?: string | undefined;
  job?: string | undefined;
  since?: string | undefined;
  format?: string | undefined;
  to?: string | undefined;
  domain?: string | undefined;
  "public-key"?: string[] | undefined;
  "kms-key-id"?: string | undefined;
  grace?: string | undefined;
  "expect-head"?: string | undefined;
  engine?: string | undefined;
  database?: string | undefined;
  workgroup?: string | undefined;
  json: boolean;
}

const SUBCOMMANDS = [
  "trace",
  "impact",
  "verify",
  "boundaries",
  "erase",
  "export",
  "reindex",
  "sign",
  "repair-chain",
] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** What may answer trace, impact, boundaries and export (verify and erase always read the records). */
const ENGINES = ["records", "duckdb", "athena"] as const;

/**
 * `voxtrail lineage <trace|impact|verify|boundaries|erase|export|reindex>`: the auditor's
 * questions, asked of the local store (`--store DIR`) or a bucket (`--bucket NAME`). Trace,
 * impact, boundaries and export are answered from the lineage edge index when the store has one
 * (`--engine records` walks the records instead). `--stage NAME` reads the deployed stage's
 * bucket, and its index's Athena database and workgroup, from its SSM parameter (flags given
 * win). Readable tables and trees on stdout, or JSON with `--json`. Resolves to the exit code:
 * `verify` returns 1 when it finds problems.
 */
export async function lineageCommand(positionals: string[], given: LineageOptions): Promise<number> {
  const [name, target, ...extra] = positionals;
  if (!SUBCOMMANDS.includes(name as Subcommand)) {
    throw new UsageError(`lineage needs one of ${SUBCOMMANDS.join(", ")}; got ${JSON.stringify(name ?? "")}`);
  }
  const sub = name as Subcommand;
  const needsTarget = sub === "trace" || sub === "impact" || sub === "erase";
  if (needsTarget && target === undefined)
    throw new UsageError(`lineage ${sub} needs an artifact (key, uri or sha256)`);
  if (extra.length > 0 || (!needsTarget && target !== undefined)) {
    throw new UsageError(
      `lineage ${sub}: unexpected argument ${JSON.stringify(needsTarget ? extra[0] : target)}`,
    );
  }
  const options = given.stage === undefined ? given : await withStage(given, given.stage);
  const lastDigest = sub === "verify" && options.since === "last-digest";
  if (options.since !== undefined && !lastDigest && Number.isNaN(Date.parse(options.since))) {
    throw new UsageError(
      `--since must be an ISO 8601 time${sub === "verify" ? " or last-digest" : ""}, got ${JSON.stringify(options.since)}`,
    );
  }
  if (options.engine !== undefined && !ENGINES.includes(options.engine as (typeof ENGINES)[number])) {
    throw new UsageError(
      `--engine must be one of ${ENGINES.join(", ")}, got ${JSON.stringify(options.engine)}`,
    );
  }
  const store = openLineageStore(
    options.bucket ? { bucket: options.bucket } : { dir: storeDirectory(options.store) },
  );
  const out = (json: unknown, text: () => string) =>
    process.stdout.write(options.json ? `${JSON.stringify(json, null, 2)}\n` : `${text()}\n`);
  const started = performance.now();

  switch (sub) {
    case "reindex": {
      const update = await reindexLineage(store);
      out(update, () => reindexReport(update, performance.now() - started));
      // A local store's new generation is signed here, as a run signs after it indexes (to stderr:
      // stdout is the report); a bucket's, by the stage's signer within its hour.
      if (options.bucket === undefined) await signLineage(store, [], process.stderr, { index: true });
      return 0;
    }
    case "sign":
      return signVouched(store, options);
    case "repair-chain":
      return repairChain(store, options, out);
    case "verify":
    case "erase":
      return checkOrErase(sub, store, target, options, out);
    default:
      return ask(sub, store, target, options, out);
  }
}

type Out = (json: unknown, text: () => string) => void;

/**
 * `options` with the deployed stage's bucket, lineage index database and workgroup filled in from
 * its SSM parameter where not given (the bucket, like `--bucket`, is read instead of `--store`).
 */
async function withStage(options: LineageOptions, stage: string): Promise<LineageOptions> {
  const resources = await readStageResources(new SSMClient({}), stage);
  return {
    ...options,
    bucket: options.bucket ?? resources.bucket,
    database: options.database ?? resources.lineageIndexDatabase,
    workgroup: options.workgroup ?? resources.lineageIndexWorkgroup,
  };
}

/** trace, impact, boundaries and export: from the index when there is one, else from the records. */
async function ask(
  sub: "trace" | "impact" | "boundaries" | "export",
  store: ObjectStore,
  target: string | undefined,
  options: LineageOptions,
  out: Out,
): Promise<number> {
  if (options.engine === "athena") {
    if (!options.bucket || !options.database || !options.workgroup) {
      throw new UsageError(
        "--engine athena needs --stage NAME, or --bucket NAME, --database NAME and --workgroup NAME (the stage's lineage index outputs)",
      );
    }
    let lastState = "";
    const athena = openAthenaIndex({
      database: options.database,
      workgroup: options.workgroup,
      // One line per change of state, on stderr: stdout stays the answer.
      onProgress: ({ purpose, state, elapsedMs }) => {
        if (state === lastState) return;
        lastState = state;
        process.stderr.write(
          `athena: ${purpose} query ${state.toLowerCase()} after ${Math.round(elapsedMs)} ms\n`,
        );
      },
    });
    process.stderr.write(
      "(athena reads the index's files itself: they are not checked against the signed manifest; --engine duckdb checks them)\n",
    );
    try {
      return await answerWith(indexAnswers(athena), sub, target as string, options, store.bucket, out);
    } finally {
      await athena.close();
    }
  }
  // A trace of one job's artifact reads that job's records alone, faster than opening the index.
  const oneJob = sub === "trace" && jobIdOfArtifactName(target as string) !== undefined;
  const useRecords = options.engine === "records" || (oneJob && options.engine === undefined);
  const index = useRecords
    ? undefined
    : await openDuckDbIndex(store, {
        trustedKeys: (await trustedKeysOf(options)).keys,
        tables: QUESTION_TABLES[sub],
      });
  if (!index && options.engine === "duckdb") {
    throw new UsageError(
      "--engine duckdb: the store has no lineage index yet; build it with `voxtrail lineage reindex`",
    );
  }
  const answers = index ? indexAnswers(index) : recordAnswers(store);
  try {
    const answer = await answerWith(answers, sub, target as string, options, store.bucket, out);
    if (index) process.stderr.write(indexNotes(index, options.json).join(""));
    return answer;
  } finally {
    await index?.close();
  }
}

async function answerWith(
  answers: LineageAnswers,
  sub: "trace" | "impact" | "boundaries" | "export",
  target: string,
  options: LineageOptions,
  bucket: string,
  out: Out,
): Promise<number> {
  switch (sub) {
    case "trace": {
      const tree = await answers.trace(target);
      out(tree, () => traceTree(tree).trimEnd());
      return 0;
    }
    case "impact": {
      const result = await answers.impact(target);
      out(result, () => impactTable(result));
      return 0;
    }
    case "boundaries": {
      const rows = await answers.boundaries(options.since ? { since: options.since } : {});
      out(rows, () => boundariesTable(rows));
      return 0;
    }
    default:
      return exportEvents(await answers.graph(), bucket, options);
  }
}

/** The tables of the index each question reads: only theirs are fetched and checked. */
const QUESTION_TABLES: Record<"trace" | "impact" | "boundaries" | "export", readonly IndexTable[]> = {
  trace: ["edges", "records"],
  impact: ["edges", "records"],
  boundaries: ["flows"],
  export: ["records"],
};

/** The keys `verify` checks digests with, and the index's proof too: the flags', else this machine's. */
function trustedKeysOf(options: LineageOptions): ReturnType<typeof trustedKeys> {
  return trustedKeys({
    publicKeys: options["public-key"],
    kmsKeyId: options["kms-key-id"],
    local: options.bucket === undefined,
  });
}

/**
 * What stderr says of the index an answer came from: how far it is proven (always: an unproven
 * answer is named, as `verify` names signatures it could not check), and, without `--json`, which
 * generation and how many jobs' summaries answered with it.
 */
function indexNotes(index: DuckDbIndex, json: boolean): string[] {
  const { proof, manifest, pending, unprovenFiles } = index;
  const notes: string[] = [];
  if (proof.status === "unproven") {
    notes.push(
      proof.reason === "no-trusted-key"
        ? "lineage index unproven: no trusted key to check its signature with (--public-key FILE or --kms-key-id ID)\n"
        : "lineage index unproven: no digest signed with a trusted key names an index generation yet (the next run, or `voxtrail lineage reindex` on a local store, signs one)\n",
    );
  } else {
    if (proof.unsignedNewer) {
      notes.push(
        `lineage index: ${proof.unsignedNewer} is newer than the signed generation, but no trusted digest names it: not used (the next signing names it, if it is genuine)\n`,
      );
    }
    if (unprovenFiles > 0) {
      notes.push(
        `lineage index unproven in part: ${unprovenFiles} file(s) of generation ${manifest.generation} have no recorded sha256 (indexed before files were hashed; \`voxtrail lineage reindex\` rewrites them)\n`,
      );
    }
  }
  if (!json) {
    const signed = proof.status === "proven" ? `, signed by ${proof.digestKey}` : "";
    notes.push(
      `(answered from the lineage index, generation ${manifest.generation}${signed}, and the summaries of ${pending} job(s) finished since)\n`,
    );
  }
  return notes;
}

/** verify and erase: they check, or delete by, the records themselves. */
async function checkOrErase(
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
async function signVouched(store: ObjectStore, options: LineageOptions): Promise<number> {
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
async function repairChain(store: ObjectStore, options: LineageOptions, out: Out): Promise<number> {
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

/** `lineage export`: NDJSON OpenLineage RunEvents on stdout, or posted to Amazon DataZone. */
async function exportEvents(graph: LineageGraph, bucket: string, options: LineageOptions): Promise<number> {
  if ((options.format ?? "openlineage") !== "openlineage") {
    throw new UsageError(`--format must be openlineage, got ${JSON.stringify(options.format)}`);
  }
  const events = openLineageEvents(graph, { bucket });
  if (options.to === undefined) {
    for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
    return 0;
  }
  if (options.to !== "datazone")
    throw new UsageError(`--to must be datazone, got ${JSON.stringify(options.to)}`);
  if (!options.domain) throw new UsageError("--to datazone needs --domain ID");
  const result = await postToDataZone(options.domain, events);
  process.stdout.write(
    options.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : `posted ${result.posted.length} event(s) to DataZone domain ${result.domainId}\n`,
  );
  return 0;
}
