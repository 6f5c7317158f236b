#!/usr/bin/env node
// Runs the CLI's JavaScript build (packages/cli/dist, made by ../build/cli-build.mjs), rebuilding it
// first when a file it was built from changed since: an edited source is never silently ignored.
import { pathToFileURL } from "node:url";
import { buildCli, currentBuild } from "../build/cli-build.mjs";
import { quietRuntimeWarnings } from "./runtime-warnings.js";

quietRuntimeWarnings();
const entry = currentBuild() ?? (await buildCli());
await import(pathToFileURL(entry).href);
