import type { ObjectStore } from "@voxtrail/core";
import { type IndexTable, jobIdOfArtifactName } from "@voxtrail/lineage/answers";
import { type DuckDbIndex, openDuckDbIndex } from "../lineage-index/duckdb-index";
import { indexAnswers, type LineageAnswers, recordAnswers } from "../lineage-index/lineage-answers";
import { boundariesTable, impactTable, traceTree } from "../lineage-views";
import { UsageError } from "../usage-error";
import { type LineageOptions, lineageStore, type Out, trustedKeysOf } from "./lineage-options";

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
  const store = await lineageStore(options);
  const out: Out = (json, text) =>
    process.stdout.write(options.json ? `${JSON.stringify(json, null, 2)}\n` : `${text()}\n`);

  // The questions are answered here; the other subcommands load their own code (and AWS clients).
  switch (sub) {
    case "reindex":
      return (await import("./lineage-records")).reindex(store, options, out);
    case "sign":
      return (await import("./lineage-records")).signVouched(store, options);
    case "repair-chain":
      return (await import("./lineage-records")).repairChain(store, options, out);
    case "verify":
    case "erase":
      return (await import("./lineage-records")).checkOrErase(sub, store, target, options, out);
    default:
      return ask(sub, store, target, options, out);
  }
}

/**
 * `options` with the deployed stage's bucket, lineage index database and workgroup filled in from
 * its SSM parameter where not given (the bucket, like `--bucket`, is read instead of `--store`).
 */
async function withStage(options: LineageOptions, stage: string): Promise<LineageOptions> {
  const [{ SSMClient }, { readStageResources }] = await Promise.all([
    import("@aws-sdk/client-ssm"),
    import("../stage/stage-lookup"),
  ]);
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
    const { openAthenaIndex } = await import("../lineage-index/athena-index");
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
      return (await import("./lineage-export")).exportEvents(await answers.graph(), bucket, options);
  }
}

/** The tables of the index each question reads: only theirs are fetched and checked. */
const QUESTION_TABLES: Record<"trace" | "impact" | "boundaries" | "export", readonly IndexTable[]> = {
  trace: ["edges", "records"],
  impact: ["edges", "records"],
  boundaries: ["flows"],
  export: ["records"],
};

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
