import type { StageResources } from "@voxtrail/workflow";
import type { TerminalLine } from "../terminal-line";
import { openStage, type StageSession } from "./stage-session";

/** Options of a `--stage` command. */
export interface StageOptions {
  stage: string;
  json: boolean;
  /** Seconds to wait for the jobs before reporting the unfinished ones as timed out (the command's default when unset). */
  timeout?: string | undefined;
}

/** What one `--stage` command does on the stage, between opening it and its exit code. */
export interface StageRun<T> {
  /** What the command sends, for its opening line: `2 voicemail(s)`, `prompts from menu.csv`. */
  what: string;
  /** The picked state machine, from the stage's resources (rejecting a stage that lacks it). */
  stateMachineArnOf(resources: StageResources): string;
  /** The progress display, cleared before the closing lines and on the way out. */
  progress: TerminalLine;
  /** Uploads and follows the jobs to their ends; `lineOut` takes lines printed on the way. */
  follow(session: StageSession, lineOut: NodeJS.WriteStream): Promise<T>;
  /** The lines that close the run: failures and the summary (`location`: `s3://bucket`). */
  closing(outcome: T, elapsedMs: number, location: string): string[];
  /** Whether the run succeeded: exit code 0, else 1. */
  succeeded(outcome: T): boolean;
}

/**
 * Runs a `--stage` command: opens the stage, says what goes where on stderr, follows the jobs
 * under a progress line, and prints the closing lines (on stderr with `--json`, which prints the
 * outcome as JSON on stdout). Resolves to the exit code.
 *
 * @example
 * return runOnStage({ stage: "dev", json: false }, { what: "2 voicemail(s)", stateMachineArnOf, progress, follow, closing, succeeded });
 */
export async function runOnStage<T>(
  options: Pick<StageOptions, "stage" | "json">,
  run: StageRun<T>,
): Promise<number> {
  const session = await openStage(options.stage, run.stateMachineArnOf);
  const { stage, bucket, region } = session.resources;
  const lineOut = options.json ? process.stderr : process.stdout;
  process.stderr.write(`voxtrail: ${run.what} to stage ${stage} (s3://${bucket}, ${region})\n`);

  const started = performance.now();
  try {
    const outcome = await run.follow(session, lineOut);
    run.progress.clear();
    for (const line of run.closing(outcome, performance.now() - started, `s3://${bucket}`)) {
      lineOut.write(`${line}\n`);
    }
    if (options.json) process.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
    return run.succeeded(outcome) ? 0 : 1;
  } finally {
    run.progress.clear();
  }
}
