/**
 * How long a job runs, as a function of its audio's length: `fixedSeconds + secondsPerAudioSecond *
 * audio seconds`, counted from when the job starts running. A job never ends earlier, and ends
 * later when the recogniser takes longer. Unset, a job ends as soon as the recogniser is done.
 */
export interface JobRunTime {
  fixedSeconds: number;
  secondsPerAudioSecond: number;
}

/**
 * Milliseconds a job over `audioMs` of audio runs for under `runTime` (0 without one).
 *
 * @example
 * jobRunTimeMs({ fixedSeconds: 5, secondsPerAudioSecond: 0.5 }, 30_000); // 20_000
 */
export function jobRunTimeMs(runTime: JobRunTime | undefined, audioMs: number): number {
  if (runTime === undefined) return 0;
  return runTime.fixedSeconds * 1000 + runTime.secondsPerAudioSecond * audioMs;
}

/**
 * @throws RangeError unless both settings are finite and not negative.
 */
export function checkJobRunTime(runTime: JobRunTime | undefined): void {
  if (runTime === undefined) return;
  for (const [name, value] of Object.entries(runTime)) {
    if (!(Number.isFinite(value) && value >= 0)) {
      throw new RangeError(`jobRunTime.${name} must be a non-negative number`);
    }
  }
}

/**
 * Resolves at `deadline` (epoch ms, rounded up to a whole millisecond) by the global `Date.now()`
 * and `setTimeout`, so a fake clock drives it; at once when it has passed.
 */
export function untilTime(deadline: number): Promise<void> {
  const ms = Math.ceil(deadline) - Date.now();
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
