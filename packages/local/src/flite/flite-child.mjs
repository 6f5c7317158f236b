// One flite synthesis in its own process: reads the text on stdin, writes the WAV on stdout.
// Node 20's WASI crashes the whole process (SIGSEGV) when a second flite instance runs in it, so
// every synthesis gets a fresh process. The text arrives on stdin so it never shows in `ps`.
// flite writes its WAV into <dir>, which the parent made and removes (see flite-engine.ts).
// Usage: node flite-child.mjs <flite.wasm path> <voice> <dir>
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { WASI } from "node:wasi";

const [wasmPath, voice, dir] = process.argv.slice(2);
const speech = await text(process.stdin);
const wasi = new WASI({
  version: "preview1",
  args: ["flite", "-voice", voice, "-t", speech, "-o", "/out/speech.wav"],
  preopens: { "/out": dir },
  env: {},
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(wasmPath));
const exitCode = wasi.start(await WebAssembly.instantiate(module, wasi.getImportObject()));
if (exitCode !== 0) {
  process.stderr.write(`flite exited with code ${exitCode}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(await readFile(join(dir, "speech.wav")));
}
