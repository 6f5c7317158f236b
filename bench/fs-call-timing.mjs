/**
 * Preload for a profile run: times every call of the `node:fs/promises` functions the directory
 * store and the kernel use (and the synchronous calls they make, which block), and prints each one's count
 * and summed wait to stderr as the process exits. Calls overlap, so the sums are waits, not
 * shares of the wall time.
 *
 *   node --import ./bench/fs-call-timing.mjs --import tsx bench/overhead-profile.ts --voicemails 20
 */
import fs from "node:fs";
import fsPromises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";

const calls = new Map();
const record = (name, ms) => {
  const entry = calls.get(name) ?? { count: 0, ms: 0 };
  entry.count += 1;
  entry.ms += ms;
  calls.set(name, entry);
};
const NAMES = [
  "mkdir",
  "mkdtemp",
  "stat",
  "open",
  "writeFile",
  "readFile",
  "rename",
  "link",
  "rm",
  "rmdir",
  "readdir",
];
for (const name of NAMES) {
  const original = fsPromises[name];
  fsPromises[name] = async function (...args) {
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      const flushed = name === "writeFile" && args[2]?.flush ? " (flush)" : "";
      record(`${name}${flushed}`, performance.now() - started);
    }
  };
}
const realpathNative = fs.realpathSync.native;
fs.realpathSync.native = function (...args) {
  const started = performance.now();
  try {
    return realpathNative.apply(this, args);
  } finally {
    record("realpathSync.native (blocks)", performance.now() - started);
  }
};
// The calls the store and the kernel make on the main thread, timed as the blocking they are.
for (const name of [
  "mkdirSync",
  "statSync",
  "linkSync",
  "renameSync",
  "rmSync",
  "rmdirSync",
  "mkdtempSync",
  "openSync",
  "writeSync",
  "readSync",
  "closeSync",
]) {
  const original = fs[name];
  fs[name] = function (...args) {
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      record(`${name} (blocks)`, performance.now() - started);
    }
  };
}
syncBuiltinESMExports();
process.on("exit", () => {
  const rows = [...calls].sort(([, a], [, b]) => b.ms - a.ms);
  for (const [name, { count, ms }] of rows) {
    process.stderr.write(`${ms.toFixed(0).padStart(8)} ms ${String(count).padStart(6)} calls  ${name}\n`);
  }
});
