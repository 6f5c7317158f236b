/**
 * Fast answers from the CLI as it ships (issue 43): the `voxtrail` tarball (`npm run pack:cli`)
 * installed into an empty folder under the OS temp directory, and each command timed from the
 * spawn of its bin to its exit, beside the floors it is held to, in the same run:
 *
 *   node -e ""                           the floor of `--version`, `help` and `definition voicemail`
 *   node importing @duckdb/node-api      the floor of the lineage questions (the engine they query
 *                                        with), from the installed folder, its own DuckDB
 *   node requiring @duckdb/node-api      beside it, no target: how the CLI loads DuckDB (a CommonJS
 *                                        package, which an ESM import first reads for its exports)
 *   lineage trace <source> / impact <source> / boundaries
 *                                        on the bench's kept 100,000-job index (`keptGeneratedIndex`,
 *                                        signed once with the key kept beside it, so the index is
 *                                        proven as a signed store's is; the files it hashed are
 *                                        remembered after the warm-up round, as for a user asking
 *                                        again)
 *
 * Every round runs every command once, in an order that turns round by round, so a busy moment
 * weighs on all of them alike; the figures are medians over the rounds, after one warm-up round
 * (the OS cache, the remembered files). Beside the wall time, each process's CPU time (user and
 * system, every thread, as GNU time reports it: what a busy shared machine inflates less), when
 * /usr/bin/time is there. Each command's median is compared with its floor's: the targets are `--version` and `help` within 150 ms of `node -e ""`, `definition` within 300 ms of
 * it, and each lineage question within 300 ms of node importing the query engine.
 *
 *   npm run bench -- --only cli
 *   npm run bench -- --only cli --cli-rounds 15 --index-jobs 20000
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { LocalSigner, listDigestKeys, writeDigest } from "@voxtrail/lineage";
import { DirectoryStore } from "@voxtrail/storage";
import { generatedNames, keptGeneratedIndex } from "./lineage-index";
import { median, round1 } from "./stats";

const run = promisify(execFile);
const REPO = fileURLToPath(new URL("../", import.meta.url));
/** GNU time: a child's CPU time, which Node does not report of a child. */
const GNU_TIME = "/usr/bin/time";

/** Options of {@link benchCliStartup}. */
export interface CliStartupOptions {
  /** Jobs in the generated index the lineage questions ask (default 100,000). */
  indexJobs: number;
  /** Measured rounds, after one warm-up (default 9). */
  rounds?: number;
  log: (line: string) => void;
}

/** What a command's median is compared with. */
type Floor = "node" | "duckdb";
/** The processes measured for comparison: the floors, and DuckDB loaded as the CLI loads it. */
type Baseline = Floor | "duckdbRequired";

/** One command's figures. */
export interface CliCommandRow {
  command: string;
  /** Median wall time, spawn to exit, ms. */
  medianMs: number;
  /** Median CPU time (user and system), ms; `undefined` without GNU time. */
  cpuMs?: number;
  floor: Floor;
  /** The median over its floor's median, ms. */
  overMs: number;
  /** The target for {@link overMs}, ms. */
  boundMs: number;
  /** Every measured round, ms. */
  samplesMs: number[];
}

/** What {@link benchCliStartup} measured. */
export interface CliStartupResult {
  rounds: number;
  indexJobs: number;
  /** The tarball installed: its name and size. */
  tarball: { name: string; mb: number };
  /** Median wall time of each baseline, ms. */
  floorMs: Record<Baseline, number>;
  /** Median CPU time of each baseline, ms; `undefined` without GNU time. */
  floorCpuMs?: Record<Baseline, number>;
  rows: CliCommandRow[];
}

/** One timed process: a name, what it is held to, and how to start it. */
interface Timed {
  command: string;
  floor?: Floor;
  boundMs?: number;
  args: string[];
}

/** Packs the CLI, installs it, and times every command; see the file's comment. */
export async function benchCliStartup(options: CliStartupOptions): Promise<CliStartupResult> {
  const folder = await mkdtemp(join(tmpdir(), "voxtrail-bench-cli-"));
  try {
    return await measureInstalled(folder, options);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** {@link benchCliStartup} in `folder`: the tarball packed there, installed into `folder/project`. */
async function measureInstalled(folder: string, options: CliStartupOptions): Promise<CliStartupResult> {
  const rounds = options.rounds ?? 9;
  await mkdir(join(folder, "project"));
  options.log("cli: packing the CLI and installing it into an empty folder ...");
  const { stdout } = await run(
    process.execPath,
    [join(REPO, "packages/cli/build/pack-cli.mjs"), "--out", folder],
    {
      cwd: REPO,
    },
  );
  const tarball = stdout.trim();
  const project = join(folder, "project");
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: project });
  const bin = join(project, "node_modules/voxtrail/bin/voxtrail.js");

  const index = await keptGeneratedIndex(options.indexJobs, options.log);
  const key = `${index.dir}.signing-key.pem`;
  await signOnce(index.dir, key);
  const { source } = await generatedNames(
    new DirectoryStore({ root: index.dir }),
    Math.floor(options.indexJobs / 3),
    options.indexJobs,
  );
  const lineage = (...args: string[]) => [bin, "lineage", ...args, "--store", index.dir];
  const timed: Timed[] = [
    { command: 'node -e ""', args: ["-e", ""] },
    {
      command: "node importing @duckdb/node-api",
      args: ["--input-type=module", "-e", 'await import("@duckdb/node-api")'],
    },
    { command: "node requiring @duckdb/node-api", args: ["-e", 'require("@duckdb/node-api")'] },
    { command: "voxtrail --version", floor: "node", boundMs: 150, args: [bin, "--version"] },
    { command: "voxtrail help", floor: "node", boundMs: 150, args: [bin, "help"] },
    {
      command: "voxtrail definition voicemail",
      floor: "node",
      boundMs: 300,
      args: [bin, "definition", "voicemail"],
    },
    {
      command: "voxtrail lineage trace <source>",
      floor: "duckdb",
      boundMs: 300,
      args: lineage("trace", source),
    },
    {
      command: "voxtrail lineage impact <source>",
      floor: "duckdb",
      boundMs: 300,
      args: lineage("impact", source),
    },
    { command: "voxtrail lineage boundaries", floor: "duckdb", boundMs: 300, args: lineage("boundaries") },
  ];
  const env = { ...process.env, VOXTRAIL_SIGNING_KEY: key };
  const samples = new Map<string, number[]>(timed.map((entry) => [entry.command, []]));
  const cpuSamples = new Map<string, number[]>(timed.map((entry) => [entry.command, []]));
  for (let round = 0; round <= rounds; round++) {
    const shift = round % timed.length;
    for (const entry of [...timed.slice(shift), ...timed.slice(0, shift)]) {
      const { wallMs, cpuMs } = await timedProcess(entry.args, { cwd: project, env });
      // Round 0 warms up: the OS cache, DuckDB's first load, the index files remembered as hashed.
      if (round === 0) continue;
      samples.get(entry.command)?.push(wallMs);
      if (cpuMs !== undefined) cpuSamples.get(entry.command)?.push(cpuMs);
    }
    if (round > 0) options.log(`cli: round ${round} of ${rounds}`);
  }
  const medianOf = (command: string) => round1(median(samples.get(command) ?? []));
  const cpuOf = (command: string) => {
    const cpu = cpuSamples.get(command) ?? [];
    return cpu.length === 0 ? undefined : round1(median(cpu));
  };
  const baselines: Record<Baseline, string> = {
    node: 'node -e ""',
    duckdb: "node importing @duckdb/node-api",
    duckdbRequired: "node requiring @duckdb/node-api",
  };
  const floorMs = {
    node: medianOf(baselines.node),
    duckdb: medianOf(baselines.duckdb),
    duckdbRequired: medianOf(baselines.duckdbRequired),
  };
  const floorCpu = Object.entries(baselines).map(([baseline, command]) => [baseline, cpuOf(command)]);
  const rows = timed
    .filter((entry) => entry.floor !== undefined)
    .map((entry): CliCommandRow => {
      const floor = entry.floor as Floor;
      const medianMs = medianOf(entry.command);
      const cpuMs = cpuOf(entry.command);
      return {
        command: entry.command,
        medianMs,
        ...(cpuMs === undefined ? {} : { cpuMs }),
        floor,
        overMs: round1(medianMs - floorMs[floor]),
        boundMs: entry.boundMs as number,
        samplesMs: (samples.get(entry.command) ?? []).map(round1),
      };
    });
  const name = tarball.slice(folder.length + 1);
  const { size } = await stat(tarball);
  return {
    rounds,
    indexJobs: options.indexJobs,
    tarball: { name, mb: round1(size / 1e6) },
    floorMs,
    ...(floorCpu.some(([, ms]) => ms === undefined)
      ? {}
      : { floorCpuMs: Object.fromEntries(floorCpu) as Record<Baseline, number> }),
    rows,
  };
}

/** One node process with `args`: its wall time, spawn to exit, and its CPU time when GNU time is there. */
async function timedProcess(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ wallMs: number; cpuMs?: number }> {
  const withTime = existsSync(GNU_TIME);
  const started = performance.now();
  const { stderr } = withTime
    ? await run(GNU_TIME, ["-f", "bench-cpu %U %S", process.execPath, ...args], {
        ...options,
        maxBuffer: 16 * 1024 * 1024,
      })
    : await run(process.execPath, args, { ...options, maxBuffer: 16 * 1024 * 1024 });
  const wallMs = performance.now() - started;
  const cpu = /bench-cpu ([\d.]+) ([\d.]+)\s*$/.exec(stderr);
  return cpu ? { wallMs, cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 } : { wallMs };
}

/** Signs the kept index once with the key kept beside it, as a run signs a local store. */
async function signOnce(dir: string, keyPath: string): Promise<void> {
  const store = new DirectoryStore({ root: dir });
  if ((await listDigestKeys(store)).length > 0) return;
  await writeDigest(store, await LocalSigner.loadOrCreate(keyPath), { jobs: [] });
}

/** The figures as a table. */
export function cliStartupTable(result: CliStartupResult): string {
  const cpu = (ms: number | undefined) => (ms === undefined ? "" : ` (cpu ${Math.round(ms)} ms)`);
  const floors = `node -e "" ${result.floorMs.node} ms${cpu(result.floorCpuMs?.node)}, node importing @duckdb/node-api ${result.floorMs.duckdb} ms${cpu(result.floorCpuMs?.duckdb)} (requiring it ${result.floorMs.duckdbRequired} ms${cpu(result.floorCpuMs?.duckdbRequired)})`;
  return [
    `voxtrail as installed from ${result.tarball.name} (${result.tarball.mb} MB), medians of ${result.rounds} alternating rounds; floors: ${floors}`,
    ...result.rows.map(
      (row) =>
        `${row.command.padEnd(36)} ${`${Math.round(row.medianMs)} ms`.padStart(8)}${cpu(row.cpuMs).padEnd(15)}  ${`${row.overMs >= 0 ? "+" : ""}${Math.round(row.overMs)} ms`.padStart(8)} over ${row.floor === "node" ? 'node -e ""' : "node + DuckDB"} (target ${row.boundMs} ms)${row.overMs <= row.boundMs ? "" : "  MISSED"}`,
    ),
    "",
  ].join("\n");
}
