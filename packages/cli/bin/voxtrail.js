#!/usr/bin/env node
// Runs the CLI's JavaScript build (packages/cli/dist, made by ../build/cli-build.mjs), rebuilding it
// first when a file it was built from changed since: an edited source is never silently ignored.
import { pathToFileURL } from "node:url";
import { buildCli, currentBuild } from "../build/cli-build.mjs";

// Notices about the runtime itself are not for the user of a command: the AWS SDK's Node-version
// notice (Lambda runs Node 22; this CLI supports 20.19+, see package.json engines).
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (warning.name === "NodeVersionSupportWarning" || /NodeVersionSupportWarning/.test(warning.message))
    return;
  process.stderr.write(`${warning.name}: ${warning.message}\n`);
});

const entry = currentBuild() ?? (await buildCli());
await import(pathToFileURL(entry).href);
