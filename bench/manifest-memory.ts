/**
 * Manifest memory: peak RSS of PreparePrompts (manifest-memory-child.ts, each run in its own
 * process) over a 1 KB manifest and over the same manifest with one 50 MB line in the middle. The
 * checker only counts a line past 64 KiB, so the long line should cost about nothing: the figure is
 * the increase of peak RSS during the handler over the peak before it, long run minus short run
 * (the issue's bound: under 50 MB; before the line cap, one such line took 1.65 GB). The table
 * also shows each process's whole peak, which includes putting the manifest into the store.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const CHILD = fileURLToPath(new URL("./manifest-memory-child.ts", import.meta.url));

/** One PreparePrompts run's figures. */
export interface PrepareMemory {
  manifestBytes: number;
  /** Peak RSS before the handler and over the process's life, MB. */
  peakBeforeMb: number;
  peakMb: number;
  /** peakMb - peakBeforeMb. */
  increaseMb: number;
  rows: number;
  badRows: number;
  ms: number;
}

/** What {@link benchManifestMemory} measured. */
export interface ManifestMemoryResult {
  small: PrepareMemory;
  longLine: PrepareMemory;
  /** The long-line run's increase less the small run's, MB. */
  extraMb: number;
}

const ROWS = Array.from({ length: 20 }, (_, n) => `p${n},Thanks for calling. Press ${n} for help.`);

/** Runs both manifests through PreparePrompts, each in a fresh process; see the file's comment. */
export async function benchManifestMemory(
  options: { longLineBytes?: number; log?: (line: string) => void } = {},
): Promise<ManifestMemoryResult> {
  const dir = await mkdtemp(join(tmpdir(), "voxtrail-bench-manifests-"));
  try {
    const small = join(dir, "small.csv");
    const long = join(dir, "long-line.csv");
    await writeFile(small, `id,text\n${ROWS.join("\n")}\n`);
    const longLine = `huge,${"a".repeat(options.longLineBytes ?? 50 * 1024 * 1024)}`;
    await writeFile(
      long,
      `id,text\n${ROWS.slice(0, 10).join("\n")}\n${longLine}\n${ROWS.slice(10).join("\n")}\n`,
    );
    const measure = async (path: string): Promise<PrepareMemory> => {
      const manifestBytes = (await stat(path)).size;
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", CHILD, path], {
        maxBuffer: 1024 * 1024,
      });
      const figures = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
      const mb = (kb: number) => Math.round(kb / 102.4) / 10;
      const result = {
        manifestBytes,
        peakBeforeMb: mb(figures.maxRssKbBefore),
        peakMb: mb(figures.maxRssKb),
        increaseMb: mb(figures.maxRssKb - figures.maxRssKbBefore),
        rows: figures.rows,
        badRows: figures.badRows,
        ms: figures.ms,
      };
      options.log?.(
        `manifest memory: ${manifestBytes < 1e6 ? `${(manifestBytes / 1000).toFixed(1)} KB` : `${(manifestBytes / 1e6).toFixed(1)} MB`} manifest, ${result.rows} row(s) and ${result.badRows} bad, peak RSS ${result.peakMb} MB (${result.peakBeforeMb} MB before)`,
      );
      return result;
    };
    const smallRun = await measure(small);
    const longRun = await measure(long);
    return {
      small: smallRun,
      longLine: longRun,
      extraMb: Math.round((longRun.increaseMb - smallRun.increaseMb) * 10) / 10,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
