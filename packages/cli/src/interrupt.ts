import { constants } from "node:os";

/** SIGINT and SIGTERM as a command that runs jobs locally (`run`, `prompts`) sees them. */
export interface Interrupt {
  /** Aborted by the first SIGINT or SIGTERM: the local runtime's `interrupt`. */
  readonly signal: AbortSignal;
  /** The first signal, once one has come. */
  readonly received: NodeJS.Signals | undefined;
}

/**
 * Takes SIGINT and SIGTERM for the rest of the process. The first aborts `signal`: the local
 * runtime then fails every stage attempt in flight with `AttemptInterrupted` (each recorded, its
 * temp directory removed) and starts no new job, so the command can end, say so with
 * {@link interruptedLine}, and exit with {@link exitCodeOf}. A second exits at once, with its own
 * code; the process's temp root goes with it all the same (the kernel removes it, synchronously,
 * on any exit).
 *
 * @example
 * const interrupt = listenForInterrupt();
 * const runtime = await LocalRuntime.start({ storeDir, interrupt: interrupt.signal });
 */
export function listenForInterrupt(): Interrupt {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) process.exit(exitCodeOf(signal));
    received = signal;
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    get received() {
      return received;
    },
  };
}

/**
 * The exit code of a command ended by `signal`, as a shell reports it: 128 + the signal's number.
 *
 * @example
 * exitCodeOf("SIGINT"); // 130
 * exitCodeOf("SIGTERM"); // 143
 */
export function exitCodeOf(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

/**
 * The line an interrupted command prints: how many of its `total` jobs (or prompts) finished, how
 * many did not, and the command that resumes them: this one again (a rerun skips what is done).
 *
 * @example
 * interruptedLine("SIGINT", 1, 3, "job");
 * // "voxtrail: interrupted by SIGINT: 1 of 3 job(s) finished, 2 did not; resume with: voxtrail run"
 */
export function interruptedLine(
  signal: NodeJS.Signals,
  finished: number,
  total: number,
  noun: string,
): string {
  return `voxtrail: interrupted by ${signal}: ${finished} of ${total} ${noun}(s) finished, ${total - finished} did not; resume with: ${commandLine()}`;
}

/** This process's `voxtrail` command line, quoted for a POSIX shell where a word needs it. */
function commandLine(): string {
  return ["voxtrail", ...process.argv.slice(2)]
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`))
    .join(" ");
}
