/**
 * Verify at the speed of the disk (issue 18): in one run over one store, `sha256sum` over exactly
 * the files `voxtrail lineage verify` reads (activity records, lineage summaries, every artifact
 * and report the lineage names, every job's source), as one process and as two, then `verify` as
 * the command runs it (the records read and the graph built while verify starts hashing the
 * artifacts), three ways:
 *
 *   full            every record, summary and artifact, no signatures
 *   full, signed    the same, and the signed digest chain and what it covers (trusted key)
 *   since digest    `since: "last-digest"`: signatures and summaries checked, artifacts re-hashed
 *                   only for jobs the last verified digest does not vouch for
 *
 * A store without digests gets one first, signed by a local key kept beside the store (never in
 * it), after its summaries are given their records' hashes as Finalize writes them (the synthetic
 * generator leaves them out; the lineage bench's verify passes either way). `sha256sum` runs as
 * `xargs -0 -P N -n 4096 sha256sum`, the file list on stdin: N = 1 is `sha256sum` as the issue
 * names it, N = 2 uses both cores as verify does (the stricter baseline). The sides alternate:
 * each round runs both sha256sums, then one way of verifying, for every way in turn. Each side's
 * minimum and median over the rounds are reported, and the ratios of both (on a shared machine
 * other load only ever adds time: the minimums are the least disturbed). The ratios to read are
 * full verify ÷ each sha256sum. `npm run bench -- --only verify` runs this on the
 * bench's kept 10,000-job store.
 *
 *   npx tsx bench/verify-speed.ts --store DIR              # a store kept by bench:lineage --keep DIR
 *   npx tsx bench/verify-speed.ts --store DIR --rounds 5   # default 3
 */
import { spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { LineageSummary, mapLimit, readJson, SOURCE_KINDS } from "@voxtrail/core";
import {
  LineageGraph,
  LocalSigner,
  lastVerifiedDigest,
  listDigestKeys,
  readLineage,
  sha256Hex,
  type VerifyOptions,
  type VerifyResult,
  verify,
  writeDigest,
} from "@voxtrail/lineage";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { median } from "./stats";

/** Options of {@link benchVerifySpeed}. */
export interface VerifySpeedOptions {
  /**
   * The directory store to measure (e.g. the lineage bench's kept store). Without a digest it is
   * given one, and its summaries their records' hashes first: it is written to, once.
   */
  store: string;
  log: (line: string) => void;
  /** Rounds of every side (default 3). */
  rounds?: number;
  /** The local signing key for the digest (default: `<store>.signing-key.pem`, beside the store). */
  signingKey?: string;
}

/** One side's wall times over the rounds, ms. */
export interface SideTimes {
  /** In the order they ran. */
  runsMs: number[];
  minMs: number;
  medianMs: number;
}

/** One way of verifying: its wall times, what it did, and its ratios to sha256sum's. */
export interface VerifySpeedRow extends SideTimes {
  way: "full" | "full, signed" | "since digest";
  artifactsChecked: number;
  /** `minMs` over two sha256sum processes'. */
  minRatio: number;
  /** `medianMs` over two sha256sum processes'. */
  medianRatio: number;
  /** `minMs` over one sha256sum process's. */
  minRatioOne: number;
  /** `medianMs` over one sha256sum process's. */
  medianRatioOne: number;
}

/** What {@link benchVerifySpeed} measured. */
export interface VerifySpeedResult {
  jobs: number;
  /** Files sha256sum hashed: the ones verify reads. */
  files: number;
  rounds: number;
  /** Two processes (`-P 2`), run once before each way of verifying, every round. */
  sha256sum: SideTimes;
  /** One process, run beside the two-process side. */
  sha256sumOne: SideTimes;
  rows: VerifySpeedRow[];
  /** Whether the digest was written by this run (the store had none). */
  digestWritten: boolean;
}

/** Times sha256sum and verify over the store; see the file's comment. */
export async function benchVerifySpeed(options: VerifySpeedOptions): Promise<VerifySpeedResult> {
  const store = new DirectoryStore({ root: options.store });
  const keyPath = options.signingKey ?? `${store.root}.signing-key.pem`;
  const signer = await LocalSigner.loadOrCreate(keyPath);
  const digestWritten = (await listDigestKeys(store)).length === 0;
  if (digestWritten) {
    options.log(`verify speed: signing a digest of ${store.root} ...`);
    await hashRecordsInSummaries(store);
    await writeDigest(store, signer);
  }
  const trustedKeys = [await signer.publicKey()];
  if (!(await lastVerifiedDigest(store, trustedKeys))) {
    throw new Error(
      `no digest in ${store.root} verifies with the key in ${keyPath}: pass the one that signed them`,
    );
  }
  const files = await filesVerifyReads(store);
  const ways: Array<[VerifySpeedRow["way"], VerifyOptions]> = [
    ["full", {}],
    ["full, signed", { trustedKeys }],
    ["since digest", { trustedKeys, since: "last-digest" }],
  ];
  const rounds = options.rounds ?? 3;
  const sha256sumRuns: number[] = [];
  const sha256sumOneRuns: number[] = [];
  const runs = new Map(ways.map(([way]) => [way, [] as number[]]));
  const results = new Map<VerifySpeedRow["way"], VerifyResult>();
  options.log(`verify speed: ${rounds} round(s) over ${files.length} files`);
  for (let round = 1; round <= rounds; round++) {
    for (const [way, verifyOptions] of ways) {
      const hashedOne = await timeSha256sum(store.root, files, 1);
      const hashed = await timeSha256sum(store.root, files, 2);
      const started = performance.now();
      // As the CLI calls it: the graph still to come, so the artifacts are hashed meanwhile.
      const result = await verify(store, readLineage(store).then(LineageGraph.of), verifyOptions);
      const ms = performance.now() - started;
      options.log(
        `verify speed: round ${round}: sha256sum ${seconds(hashedOne)}, -P 2 ${seconds(hashed)}, verify (${way}) ${seconds(ms)}, ${result.artifactsChecked} artifacts re-hashed`,
      );
      if (!result.ok) {
        const [first] = result.issues;
        throw new Error(
          `verify (${way}) found ${result.issues.length} problem(s), the first: ${first?.problem} ${first?.key}`,
        );
      }
      sha256sumRuns.push(hashed);
      sha256sumOneRuns.push(hashedOne);
      runs.get(way)?.push(ms);
      results.set(way, result);
    }
  }
  const sha256sum = sideTimes(sha256sumRuns);
  const sha256sumOne = sideTimes(sha256sumOneRuns);
  return {
    jobs: results.get("full")?.jobs ?? 0,
    files: files.length,
    rounds,
    sha256sum,
    sha256sumOne,
    rows: ways.map(([way]) => {
      const times = sideTimes(runs.get(way) ?? []);
      return {
        way,
        ...times,
        artifactsChecked: results.get(way)?.artifactsChecked ?? 0,
        minRatio: ratio(times.minMs, sha256sum.minMs),
        medianRatio: ratio(times.medianMs, sha256sum.medianMs),
        minRatioOne: ratio(times.minMs, sha256sumOne.minMs),
        medianRatioOne: ratio(times.medianMs, sha256sumOne.medianMs),
      };
    }),
    digestWritten,
  };
}

function sideTimes(runsMs: number[]): SideTimes {
  return {
    runsMs: runsMs.map(Math.round),
    minMs: Math.round(Math.min(...runsMs)),
    medianMs: Math.round(median(runsMs)),
  };
}

/** `ms` over `baseMs`, to two decimal places. */
function ratio(ms: number, baseMs: number): number {
  return Math.round((ms / baseMs) * 100) / 100;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/**
 * Adds each record's sha256 to every lineage summary that lacks them, as Finalize writes summaries
 * (the synthetic jobs' have none): with them, the digest signs the records' bytes too.
 */
async function hashRecordsInSummaries(store: DirectoryStore): Promise<void> {
  await mapLimit(await store.list(keys.lineageSummaries), 32, async (key) => {
    const summary = await readJson(store, key, LineageSummary);
    if (summary.records.every((entry) => entry.sha256 !== undefined)) return;
    const records = await Promise.all(
      summary.records.map(async (entry) => ({
        ...entry,
        sha256: sha256Hex(await store.getBytes(entry.key)),
      })),
    );
    await store.put(key, `${JSON.stringify({ ...summary, records })}\n`, { contentType: "application/json" });
  });
}

/**
 * The files verify reads, as keys (paths under the store's root): every activity record, every
 * lineage summary, every artifact and report a successful attempt wrote, and every job's source.
 */
async function filesVerifyReads(store: DirectoryStore): Promise<string[]> {
  const graph = LineageGraph.of(await readLineage(store));
  const sources = graph.activities.flatMap(({ record }) =>
    record.inputs.filter((ref) => SOURCE_KINDS.includes(ref.kind)).map((ref) => ref.key),
  );
  return [
    ...new Set([
      ...graph.activities.map((activity) => activity.key),
      ...(await store.list(keys.lineageSummaries)),
      ...graph.producers.keys(),
      ...sources,
    ]),
  ];
}

/** Wall time of `sha256sum` over `files` (relative to `root`): `processes` at once, 4096 files each call. */
async function timeSha256sum(root: string, files: string[], processes: 1 | 2): Promise<number> {
  const started = performance.now();
  const child = spawn("xargs", ["-0", "-P", String(processes), "-n", "4096", "sha256sum"], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let lines = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) lines++;
  });
  child.stdin.end(files.join("\0"));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (code !== 0 || lines !== files.length) {
    throw new Error(`sha256sum exited with ${code} after hashing ${lines} of ${files.length} files`);
  }
  return performance.now() - started;
}

/** The figures as a table. */
export function verifySpeedTable(result: VerifySpeedResult): string {
  const column = (ms: number) => seconds(ms).padStart(9);
  const times = ({ minMs, medianMs }: SideTimes) => `${column(minMs)}  ${column(medianMs)}`;
  return [
    `verify over ${result.jobs} jobs (${result.files} files) against sha256sum over the same files (one process, and -P 2), alternating, ${result.rounds} round(s), node ${process.version}`,
    `${"".padEnd(14)} ${"min".padStart(9)}  ${"median".padStart(9)}  ratio to sha256sum (min, median)  ratio to -P 2 (min, median)`,
    `${"sha256sum".padEnd(14)} ${times(result.sha256sumOne)}`,
    `${"sha256sum -P 2".padEnd(14)} ${times(result.sha256sum)}`,
    ...result.rows.map(
      (row) =>
        `${row.way.padEnd(14)} ${times(row)}  ${row.minRatioOne.toFixed(2)}x, ${row.medianRatioOne.toFixed(2)}x${"".padEnd(21)}${row.minRatio.toFixed(2)}x, ${row.medianRatio.toFixed(2)}x  (${row.artifactsChecked} artifacts re-hashed)`,
    ),
    "",
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { store: { type: "string" }, rounds: { type: "string", default: "3" } },
  });
  if (!values.store) throw new Error("--store DIR: a store kept by `npm run bench:lineage -- --keep DIR`");
  const result = await benchVerifySpeed({
    store: values.store,
    rounds: Number(values.rounds),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(verifySpeedTable(result));
}
