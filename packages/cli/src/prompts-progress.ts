import type { PromptsProgress } from "@voxtrail/local";

/**
 * A one-line progress bar for a prompts job on a terminal: prompts done out of the valid rows, with
 * the failures so far. Off when the stream is not a terminal (pipes get the failure lines and the
 * summary only).
 */
export class PromptsProgressLine {
  #total: number | undefined;
  #done = 0;
  #failed = 0;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** Updates the display from one progress event. */
  update(progress: PromptsProgress): void {
    if (progress.type === "prepared") this.#total = progress.rows;
    if (progress.type === "prompt") {
      // A failed prompt is reported once, by RecordPromptFailure; its synthesis threw.
      if (progress.outcome.status === "failed") this.#failed += 1;
      else this.#done += 1;
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
    if (!this.stream.isTTY || this.#total === undefined) return;
    const finished = this.#done + this.#failed;
    const width = 30;
    const filled = this.#total === 0 ? width : Math.round((finished / this.#total) * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    const failed = this.#failed > 0 ? `, ${this.#failed} failed` : "";
    this.stream.write(`\r\x1b[K[${bar}] ${finished}/${this.#total} prompts${failed}`);
  }
}
