/**
 * Each Lambda function's bundle as it deploys, beside a bundle that only constructs an `S3Client`:
 * every entry of the voicemail and prompts workflows is built with esbuild and exactly the options
 * sst builds it with (@voxtrail/workflow function-bundling.ts), then its size, the heavy packages the metafile shows it
 * holds, and the time a fresh `node` takes to import it (module top level only: no handler runs,
 * no credentials, no network). Each round imports the function's bundle and the S3-only bundle
 * one after the other, in alternating order, so the shared machine's noise hits both sides; the
 * ratios are the figures to read. Each import is timed twice: wall time (the issue's figure) and
 * the process's CPU time over it, which waits on no other process and so varies less on a loaded
 * machine. The SDKs a function loads on first use (every provider client but S3's) are timed
 * apart (bench/first-use.ts).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import {
  type BundledFunction,
  FUNCTION_ENTRIES,
  FUNCTION_ESBUILD_OPTIONS,
  FUNCTION_ESM_BANNER,
  PROVIDER_PACKAGES,
  type ProviderPackage,
  STAGE_PROVIDERS,
  stageMismatch,
} from "@voxtrail/workflow";
import { build } from "esbuild";
import { median } from "./stats";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The packages whose presence in a bundle is reported: the provider clients, zod and sst's SDK. */
export const HEAVY_PACKAGES = [...PROVIDER_PACKAGES, "zod", "sst"] as const;

/** One of {@link HEAVY_PACKAGES}. */
export type HeavyPackage = (typeof HEAVY_PACKAGES)[number];

/** One built bundle: where it was written, its size, and the {@link HEAVY_PACKAGES} in it. */
export interface Bundle {
  file: string;
  bytes: number;
  packages: HeavyPackage[];
}

/**
 * Bundles `entry` (a path relative to the repository, or absolute) into `outfile` exactly as sst
 * builds a function (`ESBUILD_OPTIONS`) plus sst's ESM banner, and reads the metafile: a package
 * counts as included when any of its files contributes bytes to the output.
 */
export async function buildBundle(entry: string, outfile: string): Promise<Bundle> {
  const { metafile } = await build({
    ...FUNCTION_ESBUILD_OPTIONS,
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile,
    write: true,
    metafile: true,
    banner: { js: FUNCTION_ESM_BANNER },
  });
  const outputs = Object.values(metafile.outputs);
  if (outputs.length !== 1 || !outputs[0])
    throw new Error(`${entry}: expected one output, got ${outputs.length}`);
  const included = new Set<string>();
  for (const [path, { bytesInOutput }] of Object.entries(outputs[0].inputs)) {
    const name = [...path.matchAll(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//g)].at(-1)?.[1];
    if (name && bytesInOutput > 0) included.add(name);
  }
  return {
    file: outfile,
    bytes: outputs[0].bytes,
    packages: HEAVY_PACKAGES.filter((name) => included.has(name)),
  };
}

/**
 * A fresh directory for bundles, removed by the caller. It sits under node_modules/.cache so that
 * an entry written into it (the S3-only reference) resolves the repository's packages.
 */
export async function bundleDir(): Promise<string> {
  const cache = join(ROOT, "node_modules/.cache");
  await mkdir(cache, { recursive: true });
  return mkdtemp(join(cache, "voxtrail-bundles-"));
}

/** Builds every function of {@link FUNCTION_ENTRIES} into `dir`, concurrently. */
export function buildFunctionBundles(
  dir: string,
): Promise<({ fn: BundledFunction; entry: string } & Bundle)[]> {
  return Promise.all(
    FUNCTION_ENTRIES.map(async ({ fn, entry }) => ({
      fn,
      entry,
      ...(await buildBundle(entry, join(dir, `${fn}.mjs`))),
    })),
  );
}

/** Options of {@link benchBundles}; every one has a default. */
export interface BundlesOptions {
  /**
   * Import rounds per function, each importing its bundle and the S3-only one (default 9: on a
   * shared machine, five let one spell of load move a median past 1.2x).
   */
  rounds?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One function's bundle beside the S3-only one. */
export interface BundleRow {
  fn: BundledFunction;
  entry: string;
  bytes: number;
  packages: HeavyPackage[];
  /** Provider clients in the bundle that `STAGE_PROVIDERS` does not give its stage. */
  unexpected: ProviderPackage[];
  /** Provider clients `STAGE_PROVIDERS` gives its stage that the bundle lacks. */
  missing: ProviderPackage[];
  /** Import time of each round, ms, and of the S3-only bundle in the same rounds. */
  importMs: number[];
  s3OnlyImportMs: number[];
  importMedianMs: number;
  s3OnlyImportMedianMs: number;
  /** importMedianMs over s3OnlyImportMedianMs. */
  importRatio: number;
  /** The importing process's CPU time (user + system) over each import, ms, in the same rounds. */
  importCpuMs: number[];
  s3OnlyImportCpuMs: number[];
  /** Median of importCpuMs over that of s3OnlyImportCpuMs. */
  importCpuRatio: number;
  /** The provider clients the function loads on first use, not at import: all but S3's. */
  firstUse: ProviderPackage[];
  /** bytes over the S3-only bundle's. */
  sizeRatio: number;
}

/** What {@link benchBundles} measured. */
export interface BundlesResult {
  rounds: number;
  s3Only: { bytes: number; packages: HeavyPackage[] };
  rows: BundleRow[];
}

const S3_ONLY_ENTRY = `import { S3Client } from "@aws-sdk/client-s3";\nexport const client = new S3Client({});\n`;

// Run with plain node (not tsx's loader); the bundles need no environment at their top level.
// Prints the import's wall and CPU time, then, for a bundle exporting `load`, those of `load()`.
const IMPORT_AND_TIME = [
  "const time = async (run) => {",
  "  const started = performance.now(), cpu = process.cpuUsage();",
  "  const result = await run();",
  "  const { user, system } = process.cpuUsage(cpu);",
  "  return [performance.now() - started, (user + system) / 1000, result];",
  "};",
  "const [wall, cpu, module] = await time(() => import(process.argv[1]));",
  "const times = [wall, cpu];",
  "if (module.load) times.push(...(await time(module.load)).slice(0, 2));",
  "process.stdout.write(times.join(' '));",
].join("\n");

/** One import in a fresh node: its wall and CPU time, ms, and those of the bundle's `load()` if it exports one. */
export interface ImportTimes {
  wallMs: number;
  cpuMs: number;
  load?: { wallMs: number; cpuMs: number };
}

/** Imports `file` in a fresh `node` process and returns what {@link ImportTimes} says. */
export async function importTimes(file: string): Promise<ImportTimes> {
  const { stdout } = await promisify(execFile)(process.execPath, [
    "--input-type=module",
    "-e",
    IMPORT_AND_TIME,
    pathToFileURL(file).href,
  ]);
  const [wallMs, cpuMs, loadWallMs, loadCpuMs] = stdout.split(" ").map(Number);
  if (wallMs === undefined || cpuMs === undefined || !Number.isFinite(wallMs) || !Number.isFinite(cpuMs))
    throw new Error(`importing ${file} printed ${JSON.stringify(stdout)}`);
  return {
    wallMs,
    cpuMs,
    ...(loadWallMs === undefined || loadCpuMs === undefined
      ? {}
      : { load: { wallMs: loadWallMs, cpuMs: loadCpuMs } }),
  };
}

/** Builds every function and the S3-only reference, then times importing each beside the reference. */
export async function benchBundles(options: BundlesOptions = {}): Promise<BundlesResult> {
  const rounds = options.rounds ?? 9;
  const log = options.log ?? (() => {});
  const dir = await bundleDir();
  try {
    await writeFile(join(dir, "s3-only.ts"), S3_ONLY_ENTRY);
    const [s3Only, functions] = await Promise.all([
      buildBundle(join(dir, "s3-only.ts"), join(dir, "s3-only.mjs")),
      buildFunctionBundles(dir),
    ]);
    log(`bundles: built ${functions.length} functions and the S3-only reference`);
    const rows: BundleRow[] = [];
    for (const bundle of functions) {
      const own: ImportTimes[] = [];
      const reference: ImportTimes[] = [];
      for (let round = 0; round < rounds; round++) {
        if (round % 2 === 0) {
          own.push(await importTimes(bundle.file));
          reference.push(await importTimes(s3Only.file));
        } else {
          reference.push(await importTimes(s3Only.file));
          own.push(await importTimes(bundle.file));
        }
      }
      const importTimesMs = own.map((times) => times.wallMs);
      const s3OnlyTimes = reference.map((times) => times.wallMs);
      const importCpuMs = own.map((times) => times.cpuMs);
      const s3OnlyImportCpuMs = reference.map((times) => times.cpuMs);
      const importMedianMs = median(importTimesMs);
      const s3OnlyImportMedianMs = median(s3OnlyTimes);
      rows.push({
        fn: bundle.fn,
        entry: bundle.entry,
        bytes: bundle.bytes,
        packages: bundle.packages,
        ...stageMismatch(bundle.fn, bundle.packages),
        importMs: importTimesMs,
        s3OnlyImportMs: s3OnlyTimes,
        importMedianMs,
        s3OnlyImportMedianMs,
        importRatio: importMedianMs / s3OnlyImportMedianMs,
        importCpuMs,
        s3OnlyImportCpuMs,
        importCpuRatio: median(importCpuMs) / median(s3OnlyImportCpuMs),
        firstUse: firstUsePackages(bundle.fn),
        sizeRatio: bundle.bytes / s3Only.bytes,
      });
      log(`bundles: ${bundle.fn} ${Math.round(importMedianMs)} ms vs ${Math.round(s3OnlyImportMedianMs)} ms`);
    }
    return { rounds, s3Only: { bytes: s3Only.bytes, packages: s3Only.packages }, rows };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The provider clients `fn` loads on first use: its stage's ({@link STAGE_PROVIDERS}) but S3's, which every function builds. */
function firstUsePackages(fn: BundledFunction): ProviderPackage[] {
  return STAGE_PROVIDERS[fn].filter((name) => name !== "@aws-sdk/client-s3");
}

/** `bytes` in whole kilobytes: `1,446 KB`. */
export function kb(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString("en-US")} KB`;
}

/** How a row's providers differ from its stage's: `+bedrock-runtime -sfn`, or `-` when they match. */
export function mismatchLabel(row: Pick<BundleRow, "unexpected" | "missing">): string {
  const labels = [
    ...row.unexpected.map((name) => `+${packageLabel(name)}`),
    ...row.missing.map((name) => `-${packageLabel(name)}`),
  ];
  return labels.length > 0 ? labels.join(" ") : "-";
}

/** The result as a plain-text table, one line per function and one for the S3-only reference. */
export function bundlesTable(result: BundlesResult): string {
  const header = [
    "function",
    "size",
    "size x",
    "import",
    "S3-only",
    "import x",
    "cpu x",
    "includes",
    "vs its stage",
    "on first use",
  ];
  const cells = [
    header,
    ...result.rows.map((row) => [
      row.fn,
      kb(row.bytes),
      `${row.sizeRatio.toFixed(2)}x`,
      `${Math.round(row.importMedianMs)} ms`,
      `${Math.round(row.s3OnlyImportMedianMs)} ms`,
      `${row.importRatio.toFixed(2)}x`,
      `${row.importCpuRatio.toFixed(2)}x`,
      row.packages.map(packageLabel).join(" "),
      mismatchLabel(row),
      row.firstUse.map(packageLabel).join(" ") || "-",
    ]),
    [
      "(S3 client only)",
      kb(result.s3Only.bytes),
      "1.00x",
      "",
      "",
      "",
      "",
      result.s3Only.packages.map(packageLabel).join(" "),
    ],
  ];
  const widths = header.map((_, column) => Math.max(...cells.map((line) => line[column]?.length ?? 0)));
  // Figures (size to cpu x) right-aligned, names and package lists left-aligned.
  const pad = (cell: string, column: number) =>
    column >= 1 && column <= 6 ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0);
  return [
    `Lambda bundles as sst builds them, import time in a fresh node: median of ${result.rounds} rounds, ` +
      "each also importing the S3-client-only bundle, in alternating order (cpu x: the same ratio of the process's CPU time)",
    ...cells.map((line) => line.map(pad).join("  ").trimEnd()),
    "",
  ].join("\n");
}

/** A package's short name for tables: `@aws-sdk/client-s3` -> `s3`, `@cartesia/cartesia-js` -> `cartesia`. */
export function packageLabel(name: string): string {
  return name.replace(/^@aws-sdk\/client-/, "").replace(/^@cartesia\/cartesia-js$/, "cartesia");
}
