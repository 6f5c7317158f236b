import type { ChildProcess } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ActivityRecord, type JobReport } from "@voxtrail/core";
import { BUNDLED_VOICEMAILS_DIR } from "@voxtrail/local";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";
import { runCli, spawnCli } from "./run-cli";

const VOICEMAILS = ["billing.wav", "cancellation.wav", "reschedule.wav"];
/** An attempt's temp directory: `<jobId>-<step>-<random>`. */
const ATTEMPT_DIR = /^(vm-[0-9a-f]{20})-([A-Za-z]+)-[^-/]+$/;

/** How a spawned `voxtrail run` ended, and the attempt directories seen under its temp root. */
interface Interrupted {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every attempt directory seen while the command ran. */
  seen: Set<string>;
  /** The attempt directories there when the signal was sent. */
  atSignal: string[];
}

let workDir: string;
let inputs: string;
let store: string;
/** The commands' TMPDIR: a fresh directory, to find anything they leave. */
let childTmp: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-e2e-interrupt-"));
  inputs = join(workDir, "in");
  store = join(workDir, "store");
  childTmp = join(workDir, "tmp");
  await mkdir(inputs);
  await mkdir(childTmp);
  for (const name of VOICEMAILS) await copyFile(join(BUNDLED_VOICEMAILS_DIR, name), join(inputs, name));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** What the command's environment adds: its own TMPDIR. */
const childEnv = () => ({ TMPDIR: childTmp });

/** What the command's temp root holds now (none once it is gone). */
async function attemptDirs(child: ChildProcess): Promise<string[]> {
  return readdir(join(childTmp, `voxtrail-${child.pid}`)).catch(() => []);
}

/**
 * Runs `voxtrail run --store STORE INPUTS`, sends `signal` once a Transcribe attempt is in flight
 * (its temp directory exists: pocketsphinx then has seconds of work left), and waits for the exit.
 */
async function runInterrupted(signal: NodeJS.Signals): Promise<Interrupted> {
  const { child, output, exited } = spawnCli(["run", "--store", store, inputs], childEnv());
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const seen = new Set<string>();
  let atSignal: string[] = [];
  while (running) {
    const dirs = await attemptDirs(child);
    for (const dir of dirs) seen.add(dir);
    if (atSignal.length === 0 && dirs.some((dir) => ATTEMPT_DIR.exec(dir)?.[2] === "Transcribe")) {
      atSignal = dirs;
      child.kill(signal);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const code = await exited;
  expect(atSignal, `the command ended before any Transcribe attempt began:\n${output.stderr}`).not.toEqual(
    [],
  );
  return { code, ...output, seen, atSignal };
}

/** Every activity record in the store, with the job and the file it is under. */
async function records(): Promise<Array<{ jobId: string; file: string; record: ActivityRecord }>> {
  const lineage = join(store, "lineage");
  const found = [];
  for (const jobId of await readdir(lineage).catch(() => [])) {
    for (const file of (await readdir(join(lineage, jobId))).sort()) {
      if (!file.endsWith(".json")) continue;
      const record = ActivityRecord.parse(JSON.parse(await readFile(join(lineage, jobId, file), "utf8")));
      found.push({ jobId, file, record });
    }
  }
  return found;
}

/** Checks what an interrupted run must leave: its exit code, its line, no temp file, a record per attempt. */
async function expectInterrupted(run: Interrupted, signal: NodeJS.Signals, exitCode: number): Promise<void> {
  expect(run.code, run.stderr).toBe(exitCode);
  const line = run.stderr.split("\n").find((text) => text.includes(`interrupted by ${signal}`));
  expect(line).toMatch(
    new RegExp(
      `^voxtrail: interrupted by ${signal}: (\\d) of 3 job\\(s\\) finished, (\\d) did not; resume with: `,
    ),
  );
  expect(line?.endsWith(`resume with: voxtrail run --store ${store} ${inputs}`)).toBe(true);
  expect(await readdir(childTmp, { recursive: true })).toEqual([]);

  const all = await records();
  // An attempt that began (it had a temp directory) has its record, under its own step's name.
  for (const dir of run.seen) {
    const [, jobId, step] = ATTEMPT_DIR.exec(dir) ?? [];
    expect(dir).toMatch(ATTEMPT_DIR);
    expect(all.some((r) => r.jobId === jobId && r.record.stage === step)).toBe(true);
  }
  // The Transcribe attempts in flight at the signal failed with AttemptInterrupted, naming the recogniser.
  for (const dir of run.atSignal) {
    const [, jobId, step] = ATTEMPT_DIR.exec(dir) ?? [];
    if (step !== "Transcribe") continue;
    const last = all.filter((r) => r.jobId === jobId && r.record.stage === step).at(-1)?.record;
    expect(last).toMatchObject({
      outcome: "failed",
      error: { name: "AttemptInterrupted" },
      processors: [expect.objectContaining({ provider: "pocketsphinx" })],
    });
  }
  // No attempt failed for any other reason.
  const failures = all.filter((r) => r.record.outcome === "failed").map((r) => r.record.error?.name);
  expect(new Set(failures)).toEqual(new Set(["AttemptInterrupted"]));
}

describe("voxtrail run, interrupted", () => {
  it("on SIGINT records the attempts in flight, removes every temp file, says how to resume, and exits 130", async () => {
    await expectInterrupted(await runInterrupted("SIGINT"), "SIGINT", 130);
  }, 300_000);

  it("on SIGTERM does the same and exits 143", async () => {
    await expectInterrupted(await runInterrupted("SIGTERM"), "SIGTERM", 143);
  }, 300_000);

  it("run again, completes every job, and its lineage, interrupted attempts included, verifies", async () => {
    // The interrupted attempts above were pocketsphinx's; the rerun's subject is the resume and its
    // lineage, not what is heard, so it finishes the jobs with the simulated transcriber.
    const rerun = await runCli(["run", "--store", store, inputs, "--json"], {
      ...childEnv(),
      ...SIMULATED_TRANSCRIBER_ENV,
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    const results = JSON.parse(rerun.stdout) as Array<{ status: string; report?: JobReport }>;
    expect(results.map((result) => result.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect(await readdir(childTmp, { recursive: true })).toEqual([]);
    const interrupted = (await records()).filter((r) => r.record.error?.name === "AttemptInterrupted");
    expect(interrupted.length).toBeGreaterThanOrEqual(2);

    const verify = await runCli(["lineage", "verify", "--store", store]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 600_000);
});
