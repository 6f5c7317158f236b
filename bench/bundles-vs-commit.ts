/**
 * Each Lambda function's bundle as this tree builds it beside the same function built from an
 * earlier commit's packages, and the S3-client-only bundle, in one run (issue 42's before and after):
 * sizes, and import time in a fresh node, the three taking turns in each round (the order reversed
 * every other round). Ratios are over the median of every S3-only import of the run.
 *
 *   npx tsx bench/bundles-vs-commit.ts ecc4f02        # 5 rounds
 *   npx tsx bench/bundles-vs-commit.ts ecc4f02 9      # 9 rounds
 *
 * The commit's `packages/` is extracted with `git archive` under node_modules/.cache (so that it
 * resolves this tree's dependencies) with its own `@voxtrail/*` links; the entries are this tree's
 * FUNCTION_ENTRIES, so a function the commit lacks fails the run.
 */
import { execFile } from "node:child_process";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { FUNCTION_ENTRIES, FUNCTION_ESBUILD_OPTIONS, FUNCTION_ESM_BANNER } from "@voxtrail/workflow";
import { build } from "esbuild";
import { bundleDir, importTimes, kb } from "./bundle-sizes";
import { median } from "./stats";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const run = promisify(execFile);

async function bundleBytes(root: string, entry: string, outfile: string): Promise<number> {
  const { metafile } = await build({
    ...FUNCTION_ESBUILD_OPTIONS,
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    write: true,
    metafile: true,
    banner: { js: FUNCTION_ESM_BANNER },
    logLevel: "silent",
  });
  return Object.values(metafile.outputs)[0]?.bytes ?? Number.NaN;
}

async function extractPackages(commit: string, into: string): Promise<void> {
  await run("bash", ["-c", `git archive "$1" packages | tar -x -C "$2"`, "-", commit, into], { cwd: ROOT });
  const links = join(into, "node_modules/@voxtrail");
  await mkdir(links, { recursive: true });
  const { stdout } = await run("git", ["ls-tree", "--name-only", `${commit}:packages`], { cwd: ROOT });
  for (const name of stdout.split("\n").filter(Boolean))
    await symlink(join(into, "packages", name), join(links, name));
}

const [commit, roundsArg] = process.argv.slice(2);
if (!commit) throw new Error("usage: npx tsx bench/bundles-vs-commit.ts <commit> [rounds]");
const rounds = Number(roundsArg ?? 5);
const dir = await bundleDir();
try {
  const before = join(dir, "before");
  await mkdir(before);
  await extractPackages(commit, before);
  await writeFile(
    join(dir, "s3-only.ts"),
    `import { S3Client } from "@aws-sdk/client-s3";\nexport const client = new S3Client({});\n`,
  );
  const s3OnlyBytes = await bundleBytes(ROOT, join(dir, "s3-only.ts"), join(dir, "s3-only.mjs"));
  const rows = [];
  for (const { fn, entry } of FUNCTION_ENTRIES) {
    rows.push({
      fn,
      beforeBytes: await bundleBytes(before, entry, join(dir, `${fn}.before.mjs`)),
      afterBytes: await bundleBytes(ROOT, entry, join(dir, `${fn}.after.mjs`)),
    });
  }
  const times = new Map<string, { wall: number[]; cpu: number[] }>();
  const timed = async (file: string) => {
    const { wallMs, cpuMs } = await importTimes(join(dir, file));
    const entry = times.get(file) ?? { wall: [], cpu: [] };
    entry.wall.push(wallMs);
    entry.cpu.push(cpuMs);
    times.set(file, entry);
  };
  for (let round = 0; round < rounds; round++) {
    for (const { fn } of round % 2 === 0 ? rows : [...rows].reverse()) {
      const order = [`${fn}.before.mjs`, "s3-only.mjs", `${fn}.after.mjs`];
      for (const file of round % 2 === 0 ? order : order.reverse()) await timed(file);
    }
    process.stderr.write(`round ${round + 1} of ${rounds}\n`);
  }
  const of = (file: string) => times.get(file) ?? { wall: [], cpu: [] };
  const s3Wall = median(of("s3-only.mjs").wall);
  const s3Cpu = median(of("s3-only.mjs").cpu);
  const ratio = (values: number[], reference: number) => `${(median(values) / reference).toFixed(2)}x`;
  const lines = [
    `S3-only ${kb(s3OnlyBytes)}: import median ${Math.round(s3Wall)} ms wall, ${Math.round(s3Cpu)} ms CPU, over ${of("s3-only.mjs").wall.length} imports; ${commit} vs this tree, ${rounds} rounds`,
    "",
    "| function | size before | size after | import before | import after | CPU before | CPU after |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(({ fn, beforeBytes, afterBytes }) => {
      const was = of(`${fn}.before.mjs`);
      const now = of(`${fn}.after.mjs`);
      return `| ${fn} | ${kb(beforeBytes)} | ${kb(afterBytes)} | ${ratio(was.wall, s3Wall)} | ${ratio(now.wall, s3Wall)} | ${ratio(was.cpu, s3Cpu)} | ${ratio(now.cpu, s3Cpu)} |`;
    }),
    "",
  ];
  process.stdout.write(lines.join("\n"));
} finally {
  await rm(dir, { recursive: true, force: true });
}
