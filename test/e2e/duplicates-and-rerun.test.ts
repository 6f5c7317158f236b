import { spawn } from "node:child_process";
import { copyFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { JobReport } from "@voxtrail/core";
import { BUNDLED_VOICEMAILS_DIR, type JobResult, LocalRuntime, objectCreatedEvent } from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { SIMULATED_TRANSCRIBER, SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const BIN = join(import.meta.dirname, "../../packages/cli/bin/voxtrail.js");
const workDir = temporaryDirectory("voxtrail-dup-");

/** Every key under `prefix` with its sha256, to compare a store before and after. */
async function snapshot(store: DirectoryStore, prefix = ""): Promise<Record<string, string | undefined>> {
  const entries = await Promise.all(
    (await store.list(prefix)).map(async (key) => [key, (await store.head(key))?.sha256] as const),
  );
  return Object.fromEntries(entries);
}

describe("duplicate deliveries of one upload", () => {
  it("yield one job and one set of artifacts; the duplicates are reported as such", async () => {
    const storeDir = join(workDir(), "duplicates");
    const runtime = await LocalRuntime.start({ storeDir, providers: SIMULATED_TRANSCRIBER });
    try {
      const file = { name: "no-message.wav", path: join(BUNDLED_VOICEMAILS_DIR, "no-message.wav") };
      const stored = await runtime.store.put(keys.incomingVoicemail(file.name), await readFile(file.path), {
        contentType: "audio/wav",
      });
      // EventBridge delivers at least once: the same event twice, at the same time.
      const event = objectCreatedEvent(runtime.store.bucket, stored, new Date());
      const results = await Promise.all([runtime.runEvent(event), runtime.runEvent(event)]);
      const statuses = results.map((result) => result.status).sort();
      expect(statuses).toEqual(["DUPLICATE", "SUCCEEDED"]);
      const duplicate = results.find((result) => result.status === "DUPLICATE") as JobResult;
      expect(duplicate.duplicate).toMatchObject({ reason: "in-progress", run: 1 });
      const { jobId } = duplicate;
      expect(results.every((result) => result.jobId === jobId)).toBe(true);

      const store = runtime.store as DirectoryStore;
      const afterFirst = await snapshot(store);
      // The same file uploaded again unchanged: the same job, already done; nothing new written
      // but the upload itself.
      const [again] = await runtime.run([file], { concurrency: 1 });
      expect(again).toMatchObject({ status: "DUPLICATE", jobId, duplicate: { reason: "completed", run: 1 } });
      expect(await snapshot(store)).toEqual(afterFirst);

      expect(await store.list("reports/")).toEqual([keys.report(jobId)]);
      expect(await store.list(keys.claimPrefix(jobId))).toEqual([keys.claim(jobId, 1)]);
      expect((await store.list(`artifacts/${jobId}/`)).length).toBe(5);
      // One activity record per stage: no stage ran twice.
      expect((await store.list(keys.lineagePrefix(jobId))).map((key) => key.split("/").at(-1))).toEqual([
        "finalize-01.json",
        "ingest-01.json",
        "reason-01.json",
        "synthesize-01.json",
        "transcribe-01.json",
      ]);
      expect(await store.list(`events/${jobId}/`)).toHaveLength(1);
    } finally {
      await runtime.close();
    }
  }, 300_000);
});

describe("voxtrail run killed with SIGKILL mid-batch, then run again", () => {
  it("finishes the batch with nothing lost and nothing duplicated", async () => {
    const inputDir = join(workDir(), "batch");
    const storeDir = join(workDir(), "batch-store");
    await mkdir(inputDir);
    const names = (await readdir(BUNDLED_VOICEMAILS_DIR)).filter((name) => name.endsWith(".wav"));
    for (const name of names) await copyFile(join(BUNDLED_VOICEMAILS_DIR, name), join(inputDir, name));

    // First run: killed as soon as one job has finished, with the others in flight or queued.
    const child = spawn(process.execPath, [BIN, "run", inputDir, "--store", storeDir, "--concurrency", "2"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...SIMULATED_TRANSCRIBER_ENV },
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (/^ok /m.test(chunk.toString())) child.kill("SIGKILL");
      });
      child.on("error", reject);
      child.on("exit", () => resolve());
    });
    const store = new DirectoryStore({ root: storeDir });
    const doneBefore = await store.list("reports/");
    expect(doneBefore.length).toBeGreaterThanOrEqual(1);
    expect(doneBefore.length).toBeLessThan(names.length);
    const recordsOfDoneJobs = await snapshot(store, "lineage/");

    // Second run: the same files.
    const rerun = await runCli(
      ["run", inputDir, "--store", storeDir, "--concurrency", "2", "--json"],
      SIMULATED_TRANSCRIBER_ENV,
    );
    expect(rerun.stderr).not.toMatch(/\n\s+at /);
    expect(rerun.code).toBe(0);
    const results = JSON.parse(rerun.stdout) as JobResult[];
    expect(results).toHaveLength(names.length);
    const skipped = results
      .filter((result) => result.status === "DUPLICATE")
      .map((r) => keys.report(r.jobId));
    expect(skipped.sort()).toEqual([...doneBefore].sort());
    expect(results.filter((result) => result.status === "SUCCEEDED")).toHaveLength(
      names.length - doneBefore.length,
    );

    // Nothing lost: one succeeded report per file; nothing duplicated: one job per file, five
    // artifacts per job, and the jobs done before the kill were not touched again.
    const reports = await store.list("reports/");
    expect(reports).toHaveLength(names.length);
    for (const key of reports) {
      const report = JobReport.parse(JSON.parse((await store.getBytes(key)).toString()));
      expect(report.outcome).toBe("succeeded");
      expect(await store.list(`artifacts/${report.jobId}/`)).toHaveLength(5);
    }
    const recordsAfter = await snapshot(store, "lineage/");
    for (const key of doneBefore) {
      const jobId = key.slice("reports/".length, -".json".length);
      const prefix = keys.lineagePrefix(jobId);
      const before = Object.entries(recordsOfDoneJobs).filter(([k]) => k.startsWith(prefix));
      expect(Object.entries(recordsAfter).filter(([k]) => k.startsWith(prefix))).toEqual(before);
    }
    // Every artifact still matches the lineage that records it.
    const verify = await runCli(["lineage", "verify", "--store", storeDir]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 900_000);
});

describe("two voxtrail run of the same file on one store at once", () => {
  it("both exit 0: one runs the job, the other waits for it and reports it done; nothing runs twice", async () => {
    const storeDir = join(workDir(), "twice-at-once");
    const file = join(BUNDLED_VOICEMAILS_DIR, "no-message.wav");
    const args = ["run", file, "--store", storeDir, "--json"];
    const runs = await Promise.all([
      runCli(args, SIMULATED_TRANSCRIBER_ENV),
      runCli(args, SIMULATED_TRANSCRIBER_ENV),
    ]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const results = runs.map((run) => (JSON.parse(run.stdout) as JobResult[])[0]);
    expect(results.map((result) => result?.status).sort()).toEqual(["DUPLICATE", "SUCCEEDED"]);
    const waited = runs[results.findIndex((result) => result?.status === "DUPLICATE")];
    expect(results.find((result) => result?.status === "DUPLICATE")?.duplicate).toMatchObject({
      reason: "completed",
      run: 1,
    });
    expect(waited?.stderr).toMatch(
      /^wait no-message\.wav {2}vm-\S+ {2}running in another execution \(run 1\); waiting for it to end$/m,
    );
    expect(waited?.stderr).toContain("1 already done, 0 failed");
    const store = new DirectoryStore({ root: storeDir });
    const jobId = results[0]?.jobId as string;
    expect(await store.list(keys.claimPrefix(jobId))).toEqual([keys.claim(jobId, 1)]);
  }, 300_000);
});
