import { execFile, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import { SLOW_FILES } from "../setup/slow-files-first";
import { TIERS, tierExclude } from "../setup/tiers";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const NOT_OURS = ["**/node_modules/**", ".sst/**", ".git/**"];

/** The test files a tier runs, as vitest globs them (tinyglobby, vitest's own globber). */
function filesOf(tier: (typeof TIERS)[number]): Set<string> {
  return new Set(globSync(tier.include, { cwd: ROOT, ignore: [...NOT_OURS, ...tierExclude(tier)] }));
}

describe("the test tiers", () => {
  it("put every *.test.ts of the repository in exactly one tier, so none falls out of npm test", () => {
    const everyFile = globSync("**/*.test.ts", { cwd: ROOT, ignore: NOT_OURS }).sort();
    const tiers = TIERS.map((tier) => ({ name: tier.name, files: filesOf(tier) }));
    const misplaced = everyFile
      .map((file) => ({ file, tiers: tiers.filter(({ files }) => files.has(file)).map(({ name }) => name) }))
      .filter(({ tiers }) => tiers.length !== 1);
    expect(everyFile.length).toBeGreaterThan(100);
    expect(misplaced).toEqual([]);
  });

  it("name, as the files to start first, only test files that exist", () => {
    const everyFile = new Set(globSync("**/*.test.ts", { cwd: ROOT, ignore: NOT_OURS }));
    expect(SLOW_FILES.filter((file) => !everyFile.has(file))).toEqual([]);
  });

  it("refuse, in the unit tier, to start an engine or the CLI, and still run a small system tool", () => {
    const refused = /the unit tier starts no engine or CLI/;
    expect(() => spawnSync("pocketsphinx_continuous", ["-version"])).toThrow(refused);
    expect(() => spawn("moto_server", ["-p", "0"])).toThrow(refused);
    expect(() => execFile(process.execPath, [`${ROOT}packages/cli/bin/voxtrail.js`, "--help"])).toThrow(
      refused,
    );
    expect(spawnSync("true").status).toBe(0);
  });
});
