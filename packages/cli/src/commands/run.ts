import { resolve } from "node:path";
import { RedactionOutput, type RedactionSettings } from "@voxtrail/core";
import { type LocalRun, markLocalRun } from "@voxtrail/lineage";
import {
  BUNDLED_VOICEMAILS_DIR,
  collectInputFiles,
  LocalRuntime,
  replyFormatNamed,
  selectionFromChoices,
} from "@voxtrail/local";
import { indexLineage } from "../index-lineage";
import { exitCodeOf, interruptedLine, listenForInterrupt } from "../interrupt";
import { isDone, jobLine, reviewLines, summaryLine, waitingLine } from "../job-lines";
import { ProgressLine } from "../progress";
import { jobsRun, signLineage } from "../sign-lineage";
import { storeDirectory } from "../store-option";
import { UsageError } from "../usage-error";

/** Options of `voxtrail run`. */
export interface RunOptions {
  store: string;
  records?: string | undefined;
  concurrency: string;
  json: boolean;
  synthesizer?: string | undefined;
  "sonic-endpoint"?: string | undefined;
  "voice-id"?: string | undefined;
  transcriber?: string | undefined;
  reasoner?: string | undefined;
  "reply-format": string;
  "boundary-policy": string;
  /** `redacted` or `redacted_and_unredacted` (docs/redaction.md); off when left out. */
  redaction?: string | undefined;
}

/**
 * `voxtrail run`: processes voicemails through the local runtime, waiting for any job another run
 * on the same store is running. Resolves to the exit code: 0 when every job is done (here or by
 * that other run), 1 otherwise; on SIGINT or SIGTERM, once the jobs in flight have
 * recorded their interrupted attempts, 130 or 143, after a line saying how many jobs finished and
 * how to resume (see `listenForInterrupt`).
 */
export async function runCommand(paths: string[], options: RunOptions): Promise<number> {
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new UsageError(
      `--concurrency must be a positive integer, got ${JSON.stringify(options.concurrency)}`,
    );
  }
  const { providers, replyFormat } = runChoices(options);
  const storeDir = storeDirectory(options.store);
  const files = await collectInputFiles(paths.length > 0 ? paths : [BUNDLED_VOICEMAILS_DIR], {
    exclude: [storeDir],
  });
  if (files.length === 0)
    throw new UsageError(`no .wav files found in ${paths.join(", ") || BUNDLED_VOICEMAILS_DIR}`);
  const lineOut = options.json ? process.stderr : process.stdout;
  process.stderr.write(
    `voxtrail: ${files.length} voicemail(s), ${concurrency} at a time, store ${storeDir}\n`,
  );

  const started = performance.now();
  const interrupt = listenForInterrupt();
  const runtime = await LocalRuntime.start({
    storeDir,
    ...(options.records ? { recordsFile: resolve(options.records) } : {}),
    providers,
    replyFormat,
    policyEnvironment: options["boundary-policy"],
    ...redactionOption(options.redaction),
    interrupt: interrupt.signal,
  });
  const progress = new ProgressLine(files.length);
  /** Jobs another execution is running, which this run waits for (said once each). */
  const waiting = new Set<string>();
  /** While it runs, `lineage verify` counts the jobs it ends as pending, not unsigned. */
  let marker: LocalRun | undefined;
  try {
    marker = await markLocalRun(runtime.store);
    const results = await runtime.run(files, {
      concurrency,
      onProgress: (event) => {
        if (event.type === "finished" && !interrupt.received) progress.print(jobLine(event.result), lineOut);
        if (event.type === "waiting" && !waiting.has(event.jobId)) {
          waiting.add(event.jobId);
          progress.print(waitingLine(event.file.name, event.jobId, event.run), lineOut);
        }
        progress.update(event);
      },
    });
    progress.clear();
    if (interrupt.received) {
      const finished = results.filter(isDone).length;
      process.stderr.write(`${interruptedLine(interrupt.received, finished, files.length, "job")}\n`);
      await signLineage(runtime.store, jobsRun(results), process.stderr);
      return exitCodeOf(interrupt.received);
    }
    lineOut.write(`${summaryLine(results, performance.now() - started, storeDir)}\n`);
    for (const line of reviewLines(results)) lineOut.write(`${line}\n`);
    // Index first: the digest names the index generation current as it signs.
    await indexLineage(runtime.store, lineOut);
    await signLineage(runtime.store, jobsRun(results), lineOut);
    if (options.json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return results.every(isDone) ? 0 : 1;
  } finally {
    progress.clear();
    await marker?.end();
    await runtime.close();
  }
}

/** The providers and reply format the flags (and, for what they omit, the environment) choose. */
function runChoices(options: RunOptions) {
  try {
    return {
      providers: selectionFromChoices({
        synthesizer: options.synthesizer,
        sonicEndpoint: options["sonic-endpoint"],
        voiceId: options["voice-id"],
        transcriber: options.transcriber,
        reasoner: options.reasoner,
      }),
      replyFormat: replyFormatNamed(options["reply-format"]),
    };
  } catch (error) {
    if (error instanceof Error && error.name === "InvalidInput") throw new UsageError(error.message);
    throw error;
  }
}

/** `--redaction OUTPUT` as the runtime's option; a usage error for anything but Transcribe's two outputs. */
function redactionOption(output: string | undefined): { redaction?: RedactionSettings } {
  if (output === undefined) return {};
  const parsed = RedactionOutput.safeParse(output);
  if (!parsed.success)
    throw new UsageError(
      `--redaction must be redacted or redacted_and_unredacted, got ${JSON.stringify(output)}`,
    );
  return { redaction: { output: parsed.data } };
}
