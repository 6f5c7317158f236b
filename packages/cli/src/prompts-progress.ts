import type { PromptsProgress } from "@voxtrail/local";
import { TerminalLine } from "./terminal-line";

/**
 * A one-line progress bar for a prompts job on a terminal: prompts done out of the valid rows, with
 * the failures so far. Off when the stream is not a terminal (pipes get the failure lines and the
 * summary only).
 */
export class PromptsProgressLine extends TerminalLine {
  #total: number | undefined;
  #done = 0;
  #failed = 0;

  /** Updates the display from one progress event. */
  update(progress: PromptsProgress): void {
    if (progress.type === "prepared") this.#total = progress.rows;
    if (progress.type === "prompt") {
      // A failed prompt is reported once, by RecordPromptFailure; its synthesis threw.
      if (progress.outcome.status === "failed") this.#failed += 1;
      else this.#done += 1;
    }
    this.render();
  }

  protected text(): string | undefined {
    if (this.#total === undefined) return undefined;
    const finished = this.#done + this.#failed;
    const width = 30;
    const filled = this.#total === 0 ? width : Math.round((finished / this.#total) * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    const failed = this.#failed > 0 ? `, ${this.#failed} failed` : "";
    return `[${bar}] ${finished}/${this.#total} prompts${failed}`;
  }
}
