/**
 * Verify at the speed of the disk (issue 18): in one run over one store, `sha256sum` over exactly
 * the files `voxtrail lineage verify` reads (activity records, lineage summaries, every artifact
 * and report the lineage names, every job's source), then `verify` as the command runs it (read
 * the records, build the graph, verify), three ways:
 *
 *   full            every record, summary and artifact, no signatures
 *   full, signed    the same, and the signed digest chain and what it covers (trusted key)
 *   since digest    `since: "last-digest"`: signatures and summaries checked, artifacts re-hashed
 *                   only for jobs the last verified digest does not vouch for
 *
 * A store without digests gets one first, signed by a local key kept beside the store (never in
 * it), after its summaries are given their records' hashes as Finalize writes them (the synthetic
 * generator leaves them out; the lineage bench's verify passes either way). `sha256sum` runs as `xargs -0 -P 2 -n 4096 sha256sum`: two processes for the two cores,
 * the file list on stdin. Each round runs every side once, sha256sum first; the best of the
 * rounds counts (on a shared machine, other load only ever adds time). The ratio to read is full
 * verify ÷ sha256sum.
 *
 *   npx tsx bench/verify-speed.ts --store DIR              # a store kept by bench:lineage --keep DIR
 *   npx tsx bench/verify-speed.ts --store DIR --rounds 3
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

/** Options of {@link benchVerifySpeed}. */
export interface VerifySpeedOptions {
  /**
   * The directory store to measure (e.g. the lineage bench's kept store). Without a digest it is
   * given one, and its summaries their records' hashes first: it is written to, once.
   */
  store: string;
  log: (line: string) => void;
  /** Rounds of every side; the best of each counts (default 1). */
  rounds?: number;
  /** The local signing key for the digest (default: `<store>.signing-key.pem`, beside the store). */
  signingKey?: string;
}

/** One way of verifying: its best wall time and what it did. */
export interface VerifySpeedRow {
  way: "full" | "full, signed" | "since digest";
  ms: number;
  artifactsChecked: number;
  /** `ms` over sha256sum's. */
  ratio: number;
}

/** What {@link benchVerifySpeed} measured. */
export interface VerifySpeedResult {
  jobs: number;
  /** Files sha256sum hashed: the ones verify reads. */
  files: number;
  sha256sumMs: number;
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
  let sha256sumMs = Number.POSITIVE_INFINITY;
  const best = new Map<VerifySpeedRow["way"], { ms: number; result: VerifyResult }>();
  for (let round = 1; round <= (options.rounds ?? 1); round++) {
    options.log(`verify speed: round ${round}: sha256sum over ${files.length} files ...`);
    const hashed = await timeSha256sum(store.root, files);
    options.log(`verify speed: round ${round}: sha256sum ${(hashed / 1000).toFixed(2)} s`);
    sha256sumMs = Math.min(sha256sumMs, hashed);
    for (const [way, verifyOptions] of ways) {
      const started = performance.now();
      const result = await verify(store, LineageGraph.of(await readLineage(store)), verifyOptions);
      const ms = performance.now() - started;
      options.log(
        `verify speed: round ${round}: verify (${way}) ${(ms / 1000).toFixed(2)} s, ${result.artifactsChecked} artifacts re-hashed`,
      );
      if (!result.ok) {
        const [first] = result.issues;
        throw new Error(
          `verify (${way}) found ${result.issues.length} problem(s), the first: ${first?.problem} ${first?.key}`,
        );
      }
      if (ms < (best.get(way)?.ms ?? Number.POSITIVE_INFINITY)) best.set(way, { ms, result });
    }
  }
  return {
    jobs: best.get("full")?.result.jobs ?? 0,
    files: files.length,
    sha256sumMs: Math.round(sha256sumMs),
    rows: ways.map(([way]) => {
      const { ms, result } = best.get(way) as { ms: number; result: VerifyResult };
      return {
        way,
        ms: Math.round(ms),
        artifactsChecked: result.artifactsChecked,
        ratio: Math.round((ms / sha256sumMs) * 100) / 100,
      };
    }),
    digestWritten,
  };
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

/** Wall time of `sha256sum` over `files` (relative to `root`): 2 processes, 4096 files each call. */
async function timeSha256sum(root: string, files: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn("xargs", ["-0", "-P", "2", "-n", "4096", "sha256sum"], {
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
  const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`.padStart(9);
  return [
    `verify over ${result.jobs} jobs (${result.files} files) against sha256sum -P 2 over the same files, node ${process.version}`,
    `sha256sum      ${seconds(result.sha256sumMs)}`,
    ...result.rows.map(
      (row) =>
        `${row.way.padEnd(14)} ${seconds(row.ms)}  ${row.ratio.toFixed(2)}x sha256sum  (${row.artifactsChecked} artifacts re-hashed)`,
    ),
    "",
  ].join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: { store: { type: "string" }, rounds: { type: "string", default: "1" } },
  });
  if (!values.store) throw new Error("--store DIR: a store kept by `npm run bench:lineage -- --keep DIR`");
  const result = await benchVerifySpeed({
    store: values.store,
    rounds: Number(values.rounds),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(verifySpeedTable(result));
}
