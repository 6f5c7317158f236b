import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  buildLatencyReport,
  estimateCost,
  lineageGraph,
  readJobs,
  renderCostText,
  renderHtml,
  renderText,
} from "@voxtrail/report";
import { DirectoryStore } from "@voxtrail/storage";
import { StageSizingUnknown, stageSizing } from "../capacity/stage-sizing";
import { REPOSITORY_ROOT } from "../repository-root";
import { storeDirectory } from "../store-option";
import { UsageError } from "../usage-error";

/** Options of `voxtrail report`. */
export interface ReportOptions {
  store: string;
  job?: string | undefined;
  all?: boolean | undefined;
  json: boolean;
  html?: string | undefined;
  /** Print the estimated cost per 1,000 voicemails, per stage, instead of the latency report. */
  cost?: boolean | undefined;
  /** With `cost`: the stage whose Sonic endpoint to price; `production` by default. */
  stage?: string | undefined;
}

/** The stage `--cost` prices the Sonic endpoint of when `--stage` is left out. */
const DEFAULT_COST_STAGE = "production";

/**
 * `voxtrail report`: per-stage latency percentiles from the raw samples in a local store, the
 * slowest jobs and the stage that made each slow, and the conditions behind the figures. Text on
 * stdout, or the report as JSON with `--json`; `--html FILE` also writes a self-contained page with
 * a waterfall per job and the lineage graph of the chosen job (`--job`, else the slowest).
 * `--cost` prints instead the estimated AWS cost per 1,000 voicemails like these, per stage, for
 * Standard and Express workflows, from list prices kept in one table (`@voxtrail/report`), with
 * the Sonic endpoint the stage's file deploys (`--stage`, production by default) and its floor a day.
 * Resolves to the exit code: 0, or 1 when the store holds no matching job.
 */
export async function reportCommand(positionals: string[], options: ReportOptions): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`report takes no arguments, got ${positionals.join(" ")}`);
  if (options.job !== undefined && options.all) throw new UsageError("give --job ID or --all, not both");
  if (options.cost && options.html !== undefined) throw new UsageError("give --cost or --html, not both");
  if (options.stage !== undefined && !options.cost) throw new UsageError("--stage goes with --cost");
  const storeDir = storeDirectory(options.store);
  if (!existsSync(storeDir)) throw new UsageError(`no store at ${storeDir} (see --store)`);
  const store = new DirectoryStore({ root: storeDir });
  const { jobs, unreadable } = await readJobs(
    store,
    options.job === undefined ? { all: true } : { jobId: options.job },
  );
  for (const key of unreadable) process.stderr.write(`voxtrail: skipped ${key}: not a valid document\n`);
  if (jobs.length === 0) {
    process.stderr.write(
      `voxtrail: ${options.job === undefined ? "no job reports" : `no job ${options.job}`} in ${storeDir}\n`,
    );
    return 1;
  }
  if (options.cost) {
    const endpoint = deployedEndpoint(options.stage ?? DEFAULT_COST_STAGE);
    const estimate = estimateCost(jobs, endpoint === undefined ? {} : { endpoint });
    process.stdout.write(options.json ? `${JSON.stringify(estimate, null, 2)}\n` : renderCostText(estimate));
    return 0;
  }
  const report = buildLatencyReport(jobs);
  if (options.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(renderText(report));
  if (options.html !== undefined) {
    const chosenId = options.job ?? report.slowest[0]?.jobId;
    const chosen = jobs.find((job) => job.jobId === chosenId);
    const page = renderHtml(
      report,
      chosen ? { jobId: chosen.jobId, graph: lineageGraph(chosen.records) } : undefined,
    );
    const file = resolve(options.html);
    await writeFile(file, page);
    process.stderr.write(`voxtrail: wrote ${file}\n`);
  }
  return 0;
}

/**
 * The Sonic endpoint the stage's file deploys, or `undefined` (said on stderr) when the stage uses
 * an existing endpoint whose instance type the file does not give.
 */
function deployedEndpoint(stage: string): { instanceType: string; minInstances: number } | undefined {
  try {
    const { sizing } = stageSizing(stage, REPOSITORY_ROOT);
    return { instanceType: sizing.instanceType, minInstances: sizing.minInstances };
  } catch (error) {
    if (!(error instanceof StageSizingUnknown)) throw error;
    process.stderr.write(`voxtrail: ${error.message}; SageMaker time is not priced\n`);
    return undefined;
  }
}
