/**
 * What the index's proof costs `trace` (issue 39, "the index proves itself before it answers"):
 * on the generated bench index (`keptGeneratedIndex`, 100,000 jobs over 100 days by default),
 * signed once with a throwaway key, `trace <source>` and `trace <reply audio>` answered from the
 * index in this one process, unproven (no trusted key: no digest read, no file hashed, what the
 * command did before) and proven (the digest's signature, the manifest's sha256, and each `edges`
 * and `records` file hashed before DuckDB reads it), the two ways alternating round by round so a
 * busy machine weighs on both alike. Each figure is the median of the rounds, from opening the
 * index to the answer.
 *
 *   npx tsx bench/index-proof.ts                  # 100,000 jobs, 7 rounds
 *   npx tsx bench/index-proof.ts --jobs 20000 --rounds 5
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDuckDbIndex } from "@voxtrail/cli/lineage-index";
import { LocalSigner, writeDigest } from "@voxtrail/lineage";
import { latestManifest, traceFromIndex } from "@voxtrail/lineage/edge-index";
import { DirectoryStore } from "@voxtrail/storage";
import { generatedNames, keptGeneratedIndex } from "./lineage-index";

const { values } = parseArgs({
  options: { jobs: { type: "string", default: "100000" }, rounds: { type: "string", default: "7" } },
});
const jobs = Number(values.jobs);
const rounds = Number(values.rounds);
const log = (line: string) => process.stdout.write(`${line}\n`);

const { dir } = await keptGeneratedIndex(jobs, log);
const store = new DirectoryStore({ root: dir });
const keyDir = await mkdtemp(join(tmpdir(), "voxtrail-proof-key-"));
const signer = await LocalSigner.loadOrCreate(join(keyDir, "key.pem"));
const signed = await writeDigest(store, signer, { jobs: [] });
const latest = await latestManifest(store);
if (!latest) throw new Error(`no index in ${dir}`);
let bytes = 0;
for (const day of Object.values(latest.manifest.days))
  for (const table of ["edges", "records"] as const) bytes += (await stat(join(dir, day.files[table]))).size;
log(
  `index: ${latest.manifest.jobs} jobs, ${Object.keys(latest.manifest.days).length} days, generation ${latest.manifest.generation}, signed by ${signed?.key ?? "an earlier digest"}; trace reads ${(bytes / 1e6).toFixed(1)} MB of edges and records files`,
);
const names = await generatedNames(store, Math.floor(jobs / 2), jobs);
const trusted = [await signer.publicKey()];

type Way = "unproven" | "proven";
const figures: Record<string, number[]> = {};
async function timed(way: Way, question: "source" | "replyAudio"): Promise<void> {
  const started = performance.now();
  const index = await openDuckDbIndex(store, {
    trustedKeys: way === "proven" ? trusted : [],
    tables: ["edges", "records"],
  });
  if (!index) throw new Error("no index");
  try {
    if (way === "proven" && index.proof.status !== "proven") throw new Error("the index is not proven");
    await traceFromIndex(index, names[question]);
  } finally {
    await index.close();
  }
  const name = `${question} ${way}`;
  figures[name] = [...(figures[name] ?? []), performance.now() - started];
}
await timed("unproven", "source"); // warm-up: DuckDB's first load, the OS cache
for (let round = 0; round < rounds; round++) {
  for (const question of ["source", "replyAudio"] as const) {
    const ways: Way[] = round % 2 === 0 ? ["unproven", "proven"] : ["proven", "unproven"];
    for (const way of ways) await timed(way, question);
  }
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
log("question              unproven (before)  proven (after)  added");
for (const question of ["source", "replyAudio"] as const) {
  const before = median(figures[`${question} unproven`] as number[]);
  const after = median(figures[`${question} proven`] as number[]);
  log(
    `trace <${question}>`.padEnd(22) +
      `${before.toFixed(0)} ms`.padStart(17) +
      `${after.toFixed(0)} ms`.padStart(16) +
      `${(after - before).toFixed(0)} ms`.padStart(8),
  );
}
await rm(keyDir, { recursive: true, force: true });
