import type { JobProgress } from "@voxtrail/local";
import { TerminalLine } from "./terminal-line";

/** Progress of voicemail jobs on a terminal: jobs done out of the total and the stage each running job is in. */
export class ProgressLine extends TerminalLine {
  readonly #running = new Map<string, string>();
  #done = 0;

  constructor(
    private readonly total: number,
    stream?: NodeJS.WriteStream,
  ) {
    super(stream);
  }

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
    this.render();
  }

  protected text(): string {
    const running = [...this.#running].map(([name, stage]) => `${name} › ${stage}`).join(", ");
    return `[${this.#done}/${this.total}] ${running}`;
  }
}
