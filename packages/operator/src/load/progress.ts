import { clearInterval as clearRealInterval, setInterval as realInterval } from "node:timers";

/**
 * Progress of a load run on stderr: voicemails ended by status and the simulated time, redrawn
 * every second of real time (a real timer: the virtual clock does not drive it).
 */
export class ProgressLine {
  readonly #counts: Record<string, number> = {};
  #virtualMs = 0;
  readonly #wallStart = performance.now();
  readonly #timer: ReturnType<typeof realInterval>;

  constructor(private readonly total: number) {
    this.#timer = realInterval(() => this.#draw(), 1000);
    this.#timer.unref();
  }

  /** Counts one voicemail ended with `status` at `virtualMs` into the run. */
  count(status: string, virtualMs: number): void {
    this.#counts[status] = (this.#counts[status] ?? 0) + 1;
    this.#virtualMs = Math.max(this.#virtualMs, virtualMs);
  }

  /** Draws the last line and stops. */
  end(): void {
    clearRealInterval(this.#timer);
    this.#draw();
    process.stderr.write("\n");
  }

  #draw(): void {
    const done = Object.values(this.#counts).reduce((sum, n) => sum + n, 0);
    const counts = Object.entries(this.#counts)
      .map(([status, n]) => `${n} ${status.toLowerCase()}`)
      .join(", ");
    const wall = ((performance.now() - this.#wallStart) / 1000).toFixed(0);
    process.stderr.write(
      `\rload: ${done}/${this.total} ended (${counts || "none yet"}), simulated ${(this.#virtualMs / 1000).toFixed(0)} s, wall ${wall} s   `,
    );
  }
}
