/**
 * What the index's proof costs `trace` (issue 39, "the index proves itself before it answers"):
 * on the generated bench index (`keptGeneratedIndex`, 100,000 jobs over 100 days by default),
 * signed once with a throwaway key, `trace <source>` and `trace <reply audio>` answered from the
 * index in this one process, unproven (no trusted key: no digest read, no file hashed, what the
 * command did before), proven with every `edges` and `records` file hashed before DuckDB reads it
 * (the digest's signature and the manifest's sha256 checked first), and proven with the files
 * remembered as hashed and unchanged since (`VerifiedFiles`: what a question asked again costs),
 * the three ways alternating round by round so a busy machine weighs on them alike. Each figure is the median of the rounds, from opening the
 * index to the answer.
 *
 *   npx tsx bench/index-proof.ts                  # 100,000 jobs, 7 rounds
 *   npx tsx bench/index-proof.ts --jobs 20000 --rounds 5
 */

import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openDuckDbIndex, verifiedFilesPath } from "@voxtrail/cli/lineage-index";
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
// The key kept beside the kept index (a digest it signed stays in it); the files remembered as
// hashed (beside the key, as the CLI keeps them) start empty each run.
const keyPath = `${dir}.signing-key.pem`;
process.env.VOXTRAIL_SIGNING_KEY = keyPath;
await rm(verifiedFilesPath(), { force: true });
const signer = await LocalSigner.loadOrCreate(keyPath);
await rm(join(dir, "lineage-digests"), { recursive: true, force: true }); // Signed anew below.
const signed = await writeDigest(store, signer, { jobs: [] });
const latest = await latestManifest(store);
if (!latest) throw new Error(`no index in ${dir}`);
let bytes = 0;
for (const day of Object.values(latest.manifest.days))
  for (const table of ["edges", "records"] as const) bytes += (await stat(join(dir, day.files[table]))).size;
log(
  `index: ${latest.manifest.jobs} jobs, ${Object.keys(latest.manifest.days).length} days, generation ${latest.manifest.generation}, signed by ${signed?.key}; trace reads ${(bytes / 1e6).toFixed(1)} MB of edges and records files`,
);
const names = await generatedNames(store, Math.floor(jobs / 2), jobs);
const trusted = [await signer.publicKey()];

type Way = "unproven" | "proven" | "remembered";
const figures: Record<string, number[]> = {};
async function timed(way: Way, question: "source" | "replyAudio"): Promise<void> {
  const started = performance.now();
  const index = await openDuckDbIndex(store, {
    trustedKeys: way === "unproven" ? [] : trusted,
    tables: ["edges", "records"],
    remember: way === "remembered",
  });
  if (!index) throw new Error("no index");
  try {
    if (way !== "unproven" && index.proof.status !== "proven") throw new Error("the index is not proven");
    await traceFromIndex(index, names[question]);
  } finally {
    await index.close();
  }
  const name = `${question} ${way}`;
  figures[name] = [...(figures[name] ?? []), performance.now() - started];
}
// Warm-up: DuckDB's first load, the OS cache, and the files remembered as hashed.
await timed("unproven", "source");
await timed("remembered", "source");
for (let round = 0; round < rounds; round++) {
  for (const question of ["source", "replyAudio"] as const) {
    const ways: Way[] =
      round % 2 === 0 ? ["unproven", "proven", "remembered"] : ["remembered", "proven", "unproven"];
    for (const way of ways) await timed(way, question);
  }
}
const plus = (ms: number) => `${ms >= 0 ? "+" : ""}${ms.toFixed(0)}`;
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)] as number;
log("question              unproven (before)  proven, every file hashed  proven, files remembered");
for (const question of ["source", "replyAudio"] as const) {
  const [before, hashed, remembered] = (["unproven", "proven", "remembered"] as const).map((way) =>
    median(figures[`${question} ${way}`] as number[]),
  ) as [number, number, number];
  log(
    `trace <${question}>`.padEnd(22) +
      `${before.toFixed(0)} ms`.padStart(17) +
      `${hashed.toFixed(0)} ms (${plus(hashed - before)})`.padStart(27) +
      `${remembered.toFixed(0)} ms (${plus(remembered - before)})`.padStart(26),
  );
}
