import type { JobProgress } from "@voxtrail/local";

/**
 * A one-line progress display on a terminal: jobs done out of the total and the stage each
 * running job is in. Off when the stream is not a terminal (logs and pipes get the job lines only).
 */
export class ProgressLine {
  readonly #running = new Map<string, string>();
  #done = 0;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  /** Updates the display from one progress event. */
  update(progress: JobProgress): void {
    if (progress.type === "uploaded") this.#running.set(progress.file.name, "queued");
    if (progress.type === "stage" && progress.transition.type === "entered") {
      this.#running.set(progress.file.name, progress.transition.state);
    }
    if (progress.type === "finished") {
      this.#running.delete(progress.result.file.name);
      this.#done += 1;
    }
    this.#render();
  }

  /** Writes `line` above the progress display. */
  print(line: string, out: NodeJS.WriteStream = process.stdout): void {
    this.clear();
    out.write(`${line}\n`);
    this.#render();
  }

  /** Removes the display. */
  clear(): void {
    if (this.stream.isTTY) this.stream.write("\r\x1b[K");
  }

  #render(): void {
    if (!this.stream.isTTY) return;
    const running = [...this.#running].map(([name, stage]) => `${name} › ${stage}`).join(", ");
    const line = `[${this.#done}/${this.total}] ${running}`;
    this.stream.write(`\r\x1b[K${line.slice(0, Math.max(20, (this.stream.columns ?? 100) - 1))}`);
  }
}
