#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx registers its loader, then the CLI's entry point loads.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
