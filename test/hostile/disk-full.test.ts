import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JobReport, systemErrorMeaning } from "@voxtrail/core";
import { BUNDLED_VOICEMAILS_DIR, type JobResult } from "@voxtrail/local";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../e2e/run-cli";

/**
 * The batch's store: 2 MiB. Run one at a time, no-message.wav succeeds and leaves about 1170 KiB
 * used; damaged-order.wav's upload (552 KiB with its sidecar) then fits, but its normalized copy
 * (548 KiB more) does not, so Ingest fails about 320 KiB short; billing.wav's upload (600 KiB)
 * then fails too. Each step is about 200 KiB from the other outcome, so the run is deterministic.
 */
const BATCH_TMPFS_SIZE = "2m";
const BATCH = ["no-message.wav", "damaged-order.wav", "billing.wav"];

/**
 * The tight store: room for damaged-order.wav's upload and 24 KiB more. Ingest fails, and so do
 * the writes of its failure record and report: from 556 to about 620 KiB the failure recorder
 * itself runs out of space, and the run still ends with a named DiskFull.
 */
const TIGHT_TMPFS_SIZE = "576k";
const TIGHT = ["damaged-order.wav"];

const DISK_FULL = systemErrorMeaning({ code: "ENOSPC" }) ?? { name: "", message: "" };

/** Why the test cannot mount a tmpfs here, or `undefined` when it can (as root, with `mount`). */
function whyNoTmpfs(): string | undefined {
  if (process.platform !== "linux") return `tmpfs needs Linux, not ${process.platform}`;
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root";
  if (spawnSync("mount", ["--version"]).status !== 0) return "the mount command is unavailable";
  return undefined;
}

const SKIP_REASON = whyNoTmpfs();
const onTmpfs = it.skipIf(SKIP_REASON !== undefined);
/** A test's title, saying why it is skipped when it is. */
const titled = (title: string) => (SKIP_REASON ? `${title} (skipped: ${SKIP_REASON})` : title);

interface Run {
  store: string;
  files: string[];
  code: number;
  stdout: string;
  stderr: string;
  results: JobResult[];
}

let workDir: string;
const mounted: string[] = [];
let batch: Run;
let tight: Run;

async function mountTmpfs(dir: string, size: string): Promise<void> {
  await mkdir(dir);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
  mounted.push(dir);
}

function unmount(dir: string): void {
  try {
    execFileSync("umount", [dir]);
  } catch {
    execFileSync("umount", ["-l", dir]);
  }
}

/** Runs `voxtrail run` on the bundled `names`, one at a time, with the store on a `size` tmpfs. */
async function runOnTmpfs(label: string, size: string, names: string[]): Promise<Run> {
  const store = join(workDir, label);
  await mountTmpfs(store, size);
  const files = names.map((name) => join(BUNDLED_VOICEMAILS_DIR, name));
  const run = await runCli(["run", ...files, "--store", store, "--json", "--concurrency", "1"]);
  let results: JobResult[] = [];
  try {
    results = JSON.parse(run.stdout) as JobResult[];
  } catch {
    // Not JSON: the tests below say so.
  }
  return { store, files, ...run, results };
}

beforeAll(async () => {
  if (SKIP_REASON) return;
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-disk-full-"));
  [batch, tight] = await Promise.all([
    runOnTmpfs("batch", BATCH_TMPFS_SIZE, BATCH),
    runOnTmpfs("tight", TIGHT_TMPFS_SIZE, TIGHT),
  ]);
}, 300_000);

afterAll(async () => {
  for (const dir of mounted) unmount(dir);
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/**
 * The DiskFull a failed result names, as `{ name, message }`: the cause of `UploadFailed` or of a
 * stage's Fail state (`DiskFull: ...`), or, when even the failure recorder ran out of space, the
 * execution's own error, whose cause is Lambda's `{"errorType","errorMessage"}`.
 */
function namedError(result: JobResult): { name: string; message: string } {
  const { error, cause } = result.error ?? { error: "", cause: "" };
  if (cause.startsWith("{")) {
    const { errorType, errorMessage } = JSON.parse(cause) as { errorType: string; errorMessage: string };
    expect(errorType).toBe(error);
    return { name: errorType, message: errorMessage };
  }
  const separator = cause.indexOf(": ");
  return { name: cause.slice(0, separator), message: cause.slice(separator + 2) };
}

/** What every run on a full disk shows the user, whatever ran out of space where. */
function expectHandledByMeaning(run: Run): void {
  expect(run.code, run.stderr).toBe(1);
  expect(run.stdout).not.toMatch(/\n\s+at /);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.results.map((result) => result.file.name)).toEqual(
    run.files.map((file) => file.slice(BUNDLED_VOICEMAILS_DIR.length)),
  );
  const failed = run.results.filter((result) => result.status !== "SUCCEEDED");
  expect(failed.length).toBeGreaterThan(0);
  for (const result of failed) {
    expect(result.status).toBe("FAILED");
    expect(namedError(result)).toEqual(DISK_FULL);
    const messages = JSON.stringify([result.error, result.report?.failure ?? null]);
    expect(messages).not.toContain("details withheld");
    expect(messages).not.toContain("/");
  }
  for (const line of run.stderr.split("\n").filter((text) => text.startsWith("FAIL"))) {
    expect(line).toContain(DISK_FULL.name);
    expect(line).not.toContain("/");
  }
}

describe("`voxtrail run` with its store on a tmpfs that fills up", () => {
  onTmpfs(titled("ends a batch that runs out of space partway with exit 1 and DiskFull by name"), () => {
    expectHandledByMeaning(batch);
  });

  onTmpfs(titled("finishes the job that had space, and fails the others alone"), async () => {
    const [fits, ingest, upload] = batch.results as [JobResult, JobResult, JobResult];
    expect(fits.status).toBe("SUCCEEDED");
    expect(JobReport.parse(fits.report).outcome).toBe("succeeded");
    // Its upload fitted; its normalized copy did not.
    expect(ingest).toMatchObject({ status: "FAILED", error: { error: "IngestFailed" } });
    const report = JobReport.parse(
      JSON.parse(await readFile(join(batch.store, keys.report(ingest.jobId)), "utf8")),
    );
    expect(report.failure).toEqual({ stage: "Ingest", error: DISK_FULL });
    // No job starts for a file whose upload did not fit.
    expect(upload).toMatchObject({ status: "FAILED", jobId: "-", error: { error: "UploadFailed" } });
  });

  onTmpfs(titled("names DiskFull even when the failure recorder itself runs out of space"), () => {
    expectHandledByMeaning(tight);
    expect(tight.results).toHaveLength(1);
    // Without a report, the result still says where: the recorder of the stage that failed.
    const [result] = tight.results as [JobResult];
    expect(result.error?.error).toBe("DiskFull");
    expect(result.failedState).toMatch(/^Record\w+Failure$/);
    expect(tight.stderr).toMatch(/DiskFull: no space left on the device .* \(in Record\w+Failure\)/);
  });
});
