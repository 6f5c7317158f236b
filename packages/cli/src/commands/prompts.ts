import { resolve } from "node:path";
import type { PromptsReport } from "@voxtrail/core";
import { type LocalRun, markLocalRun } from "@voxtrail/lineage";
import { type PromptsJobResult, PromptsRuntime, selectionFromChoices } from "@voxtrail/local";
import { promptKeys } from "@voxtrail/workflow";
import { failText } from "../fail-cause";
import { indexLineage } from "../index-lineage";
import { exitCodeOf, interruptedLine, listenForInterrupt } from "../interrupt";
import { PromptsProgressLine } from "../prompts-progress";
import { signLineage } from "../sign-lineage";
import { storeDirectory } from "../store-option";
import { UsageError } from "../usage-error";

/** Options of `voxtrail prompts`. */
export interface PromptsOptions {
  store: string;
  concurrency: string;
  json: boolean;
  synthesizer?: string | undefined;
  "sonic-endpoint"?: string | undefined;
  "voice-id"?: string | undefined;
  "boundary-policy": string;
}

/**
 * `voxtrail prompts MANIFEST`: runs the IVR prompts workflow locally over a CSV or JSON Lines
 * manifest, with a progress bar, a line per bad row and per failed prompt, and a summary. Resolves
 * to the exit code: 0 when every row became a prompt, 1 otherwise; on SIGINT or SIGTERM, once the
 * prompts in flight have recorded their interrupted attempts, 130 or 143, after a line saying how
 * many prompts finished and how to resume (see `listenForInterrupt`).
 */
export async function promptsCommand(positionals: string[], options: PromptsOptions): Promise<number> {
  const [manifest, ...extra] = positionals;
  if (manifest === undefined || extra.length > 0) throw new UsageError("prompts takes exactly one MANIFEST");
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new UsageError(
      `--concurrency must be a positive integer, got ${JSON.stringify(options.concurrency)}`,
    );
  }
  const storeDir = storeDirectory(options.store);
  const lineOut = options.json ? process.stderr : process.stdout;
  process.stderr.write(`voxtrail: prompts from ${manifest}, ${concurrency} at a time, store ${storeDir}\n`);
  const started = performance.now();
  const interrupt = listenForInterrupt();
  const runtime = await PromptsRuntime.start({
    storeDir,
    concurrency,
    providers: synthesizerChoice(options),
    policyEnvironment: options["boundary-policy"],
    interrupt: interrupt.signal,
  });
  const progress = new PromptsProgressLine();
  /** Prompts done (succeeded now or before) out of the manifest's valid rows, once prepared. */
  const prompts: { done: number; rows?: number } = { done: 0 };
  /** While it runs, `lineage verify` counts the job it ends as pending, not unsigned. */
  let marker: LocalRun | undefined;
  try {
    marker = await markLocalRun(runtime.store);
    const result = await runtime.run(resolve(manifest), {
      onProgress: (event) => {
        if (event.type === "prepared") prompts.rows = event.rows;
        if (event.type === "prompt" && event.outcome.status !== "failed") prompts.done += 1;
        progress.update(event);
      },
    });
    progress.clear();
    if (interrupt.received) {
      const line =
        prompts.rows === undefined
          ? interruptedLine(interrupt.received, 0, 1, "prompts job")
          : interruptedLine(interrupt.received, prompts.done, prompts.rows, "prompt");
      process.stderr.write(`${line}\n`);
      return exitCodeOf(interrupt.received);
    }
    // A job that failed as a whole (e.g. PromptManifestEmpty) is an error: its line goes to stderr.
    const failureOut = result.error ? process.stderr : lineOut;
    for (const line of promptsFailureLines(result)) failureOut.write(`${line}\n`);
    lineOut.write(`${promptsSummaryLine(result, performance.now() - started, storeDir)}\n`);
    // Its job, also when an earlier run finished it and was killed before it signed.
    const ended = result.status !== "DUPLICATE" || result.duplicate?.reason === "completed";
    // Index first: the digest names the index generation current as it signs.
    await indexLineage(runtime.store, lineOut);
    await signLineage(runtime.store, ended ? [result.jobId] : [], lineOut);
    if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return promptsSucceeded(result) ? 0 : 1;
  } finally {
    progress.clear();
    await marker?.end();
    await runtime.close();
  }
}

/**
 * Whether every row of the manifest became a prompt (the job's exit code is 0 only then): in this
 * run, or in an earlier one this run found done (a `completed` duplicate).
 */
export function promptsSucceeded(result: PromptsJobResult): boolean {
  const totals = result.report?.totals;
  const ran = result.status === "SUCCEEDED" || result.duplicate?.reason === "completed";
  return ran && totals !== undefined && totals.succeeded === totals.rows;
}

/**
 * One line per bad row and per prompt that did not succeed, in manifest order; or one line for a
 * job that ended without a report, with its error's name and message.
 *
 * @example
 * promptsFailureLines(result); // ["bad  line 7 p7  PromptTextEmpty: ...", "FAIL line 9 p9  ..."]
 */
export function promptsFailureLines(result: PromptsJobResult): string[] {
  if (result.status === "NOT_MATCHED") return [`FAIL ${result.key}  not matched by the prompts rule`];
  if (result.duplicate?.reason === "in-progress") {
    return [
      `skip ${result.jobId}  running in another execution (run ${result.duplicate.run}); nothing written`,
    ];
  }
  if (!result.report) {
    return [`FAIL ${result.jobId}  ${failText(result.error)}`];
  }
  const report: PromptsReport = result.report;
  const lines = [
    ...report.badRows.map((row) => ({
      line: row.line,
      text: `bad  line ${row.line}${row.id ? ` ${row.id}` : ""}  ${row.error}: ${row.message}`,
    })),
    ...report.prompts
      .filter((prompt) => prompt.status !== "succeeded")
      .map((prompt) => ({
        line: prompt.line,
        text: `FAIL line ${prompt.line} ${prompt.id}  ${
          prompt.status === "failed" ? `${prompt.error?.name}: ${prompt.error?.message}` : "not run"
        }`,
      })),
  ];
  return lines.sort((a, b) => a.line - b.line).map((entry) => entry.text);
}

/**
 * The job's summary: rows succeeded, failed, bad and not run, the time taken, and where the audio
 * and report are (`location`: the store directory, or `s3://bucket` on a stage).
 *
 * @example
 * promptsSummaryLine(result, 5200, "s3://voxtrail-dev"); // "4 row(s): 3 succeeded, 0 failed, 1 bad row(s) in 5.2 s; ..."
 */
export function promptsSummaryLine(result: PromptsJobResult, elapsedMs: number, location: string): string {
  const totals = result.report?.totals;
  if (!totals) return `prompts job ${result.jobId} ${result.status.toLowerCase()} in ${seconds(elapsedMs)}`;
  const counts = [
    `${totals.succeeded} succeeded`,
    `${totals.failed} failed`,
    `${totals.badRows} bad row(s)`,
    ...(totals.notRun > 0 ? [`${totals.notRun} not run`] : []),
  ];
  return `${totals.rows} row(s): ${counts.join(", ")} in ${seconds(elapsedMs)}; ${(totals.audioMs / 1000).toFixed(1)} s of audio in ${location}/${promptKeys.jobPrefix(result.jobId)}, report ${promptKeys.report(result.jobId)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function synthesizerChoice(options: PromptsOptions) {
  try {
    return selectionFromChoices({
      synthesizer: options.synthesizer,
      sonicEndpoint: options["sonic-endpoint"],
      voiceId: options["voice-id"],
      transcriber: "local",
      reasoner: "local",
    });
  } catch (error) {
    if (error instanceof Error && error.name === "InvalidInput") throw new UsageError(error.message);
    throw error;
  }
}
