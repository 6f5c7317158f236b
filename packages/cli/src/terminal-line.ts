/**
 * One status line kept at the bottom of a terminal, with output lines printed above it. Off when
 * the stream is not a terminal (logs and pipes get the printed lines only). Subclasses say what
 * the line shows.
 */
export abstract class TerminalLine {
  constructor(protected readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** Writes `line` above the status line. */
  print(line: string, out: NodeJS.WriteStream = process.stdout): void {
    this.clear();
    out.write(`${line}\n`);
    this.render();
  }

  /** Removes the status line. */
  clear(): void {
    if (this.stream.isTTY) this.stream.write("\r\x1b[K");
  }

  /** Redraws the status line, cut to the terminal's width. */
  protected render(): void {
    const text = this.stream.isTTY ? this.text() : undefined;
    if (text === undefined) return;
    this.stream.write(`\r\x1b[K${text.slice(0, Math.max(20, (this.stream.columns ?? 100) - 1))}`);
  }

  /** What the status line shows now, or `undefined` for nothing yet. */
  protected abstract text(): string | undefined;
}
