// One flite synthesis in its own process. Started ahead of its job: it compiles flite at once, then
// reads the job from stdin as JSON, {"voice", "dir", "text"}, and writes the WAV on stdout. Stdin
// closed with no job (the parent retired it, or is gone) ends it quietly.
// Node 20's WASI crashes the whole process (SIGSEGV) when a second flite instance runs in it, so
// every synthesis gets a fresh process. The text arrives on stdin so it never shows in `ps`.
// flite writes its WAV into <dir>, which the parent made and removes (see flite-process.ts).
// Usage: node flite-child.mjs <flite.wasm path>
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { text } from "node:stream/consumers";
import { WASI } from "node:wasi";

const [wasmPath] = process.argv.slice(2);
const [module, input] = await Promise.all([
  readFile(wasmPath).then((bytes) => WebAssembly.compile(bytes)),
  text(process.stdin),
]);
if (input !== "") {
  const { voice, dir, text: speech } = JSON.parse(input);
  const wasi = new WASI({
    version: "preview1",
    args: ["flite", "-voice", voice, "-t", speech, "-o", "/out/speech.wav"],
    preopens: { "/out": dir },
    env: {},
    returnOnExit: true,
  });
  const exitCode = wasi.start(await WebAssembly.instantiate(module, wasi.getImportObject()));
  if (exitCode !== 0) {
    process.stderr.write(`flite exited with code ${exitCode}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(await readFile(join(dir, "speech.wav")));
  }
}
