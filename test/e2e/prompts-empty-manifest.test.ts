import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const workDir = temporaryDirectory("voxtrail-prompts-empty-");

describe("voxtrail prompts on a manifest without rows", () => {
  it.each([
    ["empty.csv", ""],
    ["header.csv", "id,text\n"],
  ])(
    "fails on %s: exit 1, PromptManifestEmpty and its message on stderr, no stack",
    async (name, body) => {
      const manifest = join(workDir(), name);
      await writeFile(manifest, body);

      const { code, stdout, stderr } = await runCli([
        "prompts",
        manifest,
        "--store",
        join(workDir(), `store-${name}`),
      ]);

      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(
        /^FAIL pr-[0-9a-f]{20} {2}PromptManifestEmpty: the manifest has no prompt rows: add one line per prompt with its id and text/m,
      );
      expect(stderr).not.toMatch(/errorType|\n\s+at /);
      expect(stdout).not.toMatch(/row\(s\)/);
    },
    60_000,
  );
});
