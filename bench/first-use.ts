/**
 * What a function pays, on its first invocation, for an SDK it loads on first use rather than at
 * import (issue 42): for each such package, a bundle built as sst builds a function that constructs
 * an S3 client at its top level, as every function's bundle does, and exports `load`, which imports
 * the package. A fresh `node` imports the bundle, then times `load()`: the package evaluated after
 * the S3 client, with the modules they share (the AWS SDK's core) already loaded.
 */
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProviderPackage } from "@voxtrail/workflow";
import { buildBundle, bundleDir, importTimes, packageLabel } from "./bundle-sizes";
import { median } from "./stats";

/** Options of {@link benchFirstUse}. */
export interface FirstUseOptions {
  /** The packages to time: those some function loads on first use. */
  packages: readonly ProviderPackage[];
  /** Fresh processes per package (default 5). */
  rounds?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One package's load on first use, ms, in each round, and the medians. */
export interface FirstUseResult {
  package: ProviderPackage;
  loadMs: number[];
  loadCpuMs: number[];
  loadMedianMs: number;
  loadCpuMedianMs: number;
}

const entryLoading = (name: ProviderPackage) =>
  `import { S3Client } from "@aws-sdk/client-s3";\nexport const client = new S3Client({});\nexport const load = () => import(${JSON.stringify(name)});\n`;

/** Builds a bundle per package and times its `load()` in `rounds` fresh processes, the packages taking turns. */
export async function benchFirstUse(options: FirstUseOptions): Promise<FirstUseResult[]> {
  const rounds = options.rounds ?? 5;
  const log = options.log ?? (() => {});
  const dir = await bundleDir();
  try {
    const bundles = await Promise.all(
      options.packages.map(async (name) => {
        const entry = join(dir, `${packageLabel(name)}.ts`);
        await writeFile(entry, entryLoading(name));
        return { name, file: (await buildBundle(entry, join(dir, `${packageLabel(name)}.mjs`))).file };
      }),
    );
    const times = new Map(bundles.map(({ name }) => [name, { wall: [] as number[], cpu: [] as number[] }]));
    for (let round = 0; round < rounds; round++) {
      for (const { name, file } of round % 2 === 0 ? bundles : [...bundles].reverse()) {
        const { load } = await importTimes(file);
        if (!load) throw new Error(`${file} exports no load()`);
        times.get(name)?.wall.push(load.wallMs);
        times.get(name)?.cpu.push(load.cpuMs);
      }
    }
    return bundles.map(({ name }) => {
      const { wall, cpu } = times.get(name) ?? { wall: [], cpu: [] };
      log(`first use: ${name} ${Math.round(median(wall))} ms`);
      return {
        package: name,
        loadMs: wall,
        loadCpuMs: cpu,
        loadMedianMs: median(wall),
        loadCpuMedianMs: median(cpu),
      };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The result as a plain-text table, one line per package. */
export function firstUseTable(results: readonly FirstUseResult[], rounds: number): string {
  const lines = results.map(
    (result) =>
      `${packageLabel(result.package).padEnd(20)}  ${`${Math.round(result.loadMedianMs)} ms`.padStart(7)}  ${`${Math.round(result.loadCpuMedianMs)} ms`.padStart(7)}`,
  );
  return [
    `SDKs loaded on first use, after the S3 client: median of ${rounds} fresh processes (wall, CPU)`,
    ...lines,
    "",
  ].join("\n");
}
