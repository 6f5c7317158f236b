import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLED_VOICEMAILS_DIR, type JobResult } from "@voxtrail/local";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../e2e/run-cli";
import { SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";

let workDir: string;
let calls: string;
const runs: Array<{ code: number; stdout: string; stderr: string; results: JobResult[] }> = [];

/**
 * A caller's directory as a newcomer has it: `mon/001.wav` and `tue/001.wav` (the same name in two
 * folders; tue's a symbolic link to a file elsewhere), and a FIFO named like a voicemail. It is run
 * twice from inside it with `voxtrail run .`, whose default store (`.voxtrail/`) lands in the same
 * directory the second run walks. Transcription is simulated: the subject is which files run.
 */
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-layout-"));
  calls = join(workDir, "calls");
  await mkdir(join(calls, "mon"), { recursive: true });
  await mkdir(join(calls, "tue"));
  await copyFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"), join(calls, "mon", "001.wav"));
  await copyFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"), join(workDir, "elsewhere.wav"));
  await symlink(join(workDir, "elsewhere.wav"), join(calls, "tue", "001.wav"));
  execFileSync("mkfifo", [join(calls, "pipe.wav")]);
  for (let n = 0; n < 2; n++) {
    const run = await runCli(["run", ".", "--json"], SIMULATED_TRANSCRIBER_ENV, calls);
    runs.push({ ...run, results: JSON.parse(run.stdout || "[]") as JobResult[] });
  }
}, 600_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("`voxtrail run .` in a directory with one name in two folders, a symlink and a FIFO, twice", () => {
  it("runs both 001.wav files under their folders' names, the symlinked one included, and skips the FIFO", () => {
    const [first] = runs;
    expect(first?.code, first?.stderr).toBe(0);
    expect(first?.results.map((result) => [result.file.name, result.status])).toEqual([
      ["calls/mon/001.wav", "SUCCEEDED"],
      ["calls/tue/001.wav", "SUCCEEDED"],
    ]);
  });

  it("the second run takes nothing from the first one's store and finds both jobs done", () => {
    const [, second] = runs;
    expect(second?.code, second?.stderr).toBe(0);
    expect(
      second?.results.map((result) => [result.file.name, result.status, result.duplicate?.reason]),
    ).toEqual([
      ["calls/mon/001.wav", "DUPLICATE", "completed"],
      ["calls/tue/001.wav", "DUPLICATE", "completed"],
    ]);
    expect(second?.stderr).toContain("2 job(s): 0 succeeded, 2 already done, 0 failed");
  });

  it("shows no stack trace", () => {
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
  });
});
