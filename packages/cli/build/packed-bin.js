#!/usr/bin/env node
// The installed `voxtrail` package's bin (pack-cli.mjs copies it to bin/voxtrail.js): runs the
// prebuilt CLI in ../dist. No sources, no esbuild: the package holds the build, never rebuilds it.
// runtime-warnings.js is packages/cli/bin's, copied beside it.
import { quietRuntimeWarnings } from "./runtime-warnings.js";

quietRuntimeWarnings();
await import("../dist/main.js");
