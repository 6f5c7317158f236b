#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx registers its loader, then the CLI's entry point loads.
import { register } from "tsx/esm/api";

// flite runs under node:wasi, which Node flags as experimental on every run: not a notice for users.
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name !== "ExperimentalWarning") process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

register();
await import("../src/main.ts");
