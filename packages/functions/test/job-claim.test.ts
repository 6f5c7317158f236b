import { type ExecutionLiveness, JobClaim, type JobReport, type PromptsReport } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { keys, promptKeys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { scratchDirectory } from "../../../test/support/temporary-directory";
import { claimJob, promptsRunEnding, voicemailRunEnding } from "../src/claims/job-claim";

const jobId = "vm-00000000000000000001";
const source = { bucket: "voxtrail-local", key: "incoming/voicemail/a.wav", etag: '"abc"' };
const now = new Date("2026-11-30T08:00:00.000Z");

/** Executions named in `running` are running; every other one has ended. */
function liveness(...running: string[]): ExecutionLiveness {
  return { isRunning: async (executionId) => running.includes(executionId) };
}

async function freshStore() {
  return new DirectoryStore({ root: scratchDirectory("voxtrail-claim-") });
}

async function writeReport(store: DirectoryStore, executionId: string, outcome: JobReport["outcome"]) {
  const report: JobReport = {
    schemaVersion: 1,
    jobId,
    outcome,
    source,
    eventTime: now.toISOString(),
    execution: { id: executionId, startTime: now.toISOString() },
    artifacts: [],
    stages: [],
    timings: [],
    writtenAt: now.toISOString(),
  };
  await store.put(keys.report(jobId), JSON.stringify(report), { contentType: "application/json" });
}

const claim = (store: DirectoryStore, executionId: string, running: ExecutionLiveness = liveness()) =>
  claimJob(store, running, voicemailRunEnding, { jobId, executionId, source, now });

describe("claimJob", () => {
  it("claims a new job as run 1 and writes the claim", async () => {
    const store = await freshStore();
    expect(await claim(store, "exec-a")).toEqual({ claimed: true, run: 1 });
    const written = JobClaim.parse(JSON.parse((await store.getBytes(keys.claim(jobId, 1))).toString()));
    expect(written).toMatchObject({ jobId, run: 1, executionId: "exec-a", source });
  });

  it("lets the claiming execution's own retry go on", async () => {
    const store = await freshStore();
    await claim(store, "exec-a", liveness("exec-a"));
    expect(await claim(store, "exec-a", liveness("exec-a"))).toEqual({ claimed: true, run: 1 });
    expect(await store.list(keys.claimPrefix(jobId))).toHaveLength(1);
  });

  it("reports a second delivery while the first runs as a duplicate in progress", async () => {
    const store = await freshStore();
    await claim(store, "exec-a", liveness("exec-a"));
    expect(await claim(store, "exec-b", liveness("exec-a"))).toEqual({
      claimed: false,
      jobId,
      duplicate: { reason: "in-progress", executionId: "exec-a", run: 1 },
    });
  });

  it("reports a delivery after success as a duplicate of the completed job", async () => {
    const store = await freshStore();
    await claim(store, "exec-a");
    await writeReport(store, "exec-a", "succeeded");
    expect(await claim(store, "exec-b")).toMatchObject({
      claimed: false,
      duplicate: { reason: "completed", executionId: "exec-a", run: 1 },
    });
  });

  it("claims the next run after a failed run", async () => {
    const store = await freshStore();
    await claim(store, "exec-a");
    await writeReport(store, "exec-a", "failed");
    expect(await claim(store, "exec-b")).toEqual({ claimed: true, run: 2 });
  });

  it("claims the next run when the owner ended without a report (killed, timed out)", async () => {
    const store = await freshStore();
    await claim(store, "exec-a", liveness("exec-a"));
    expect(await claim(store, "exec-b", liveness())).toEqual({ claimed: true, run: 2 });
  });

  it("does not take an earlier run's success for the latest run's", async () => {
    const store = await freshStore();
    await claim(store, "exec-a");
    await writeReport(store, "exec-a", "failed");
    await claim(store, "exec-b", liveness("exec-b"));
    // exec-a's failed report is still there; exec-b (run 2) is running: a duplicate in progress.
    expect(await claim(store, "exec-c", liveness("exec-b"))).toMatchObject({
      claimed: false,
      duplicate: { reason: "in-progress", executionId: "exec-b", run: 2 },
    });
  });

  it("of concurrent deliveries exactly one claims the job", async () => {
    const store = await freshStore();
    const executions = Array.from({ length: 6 }, (_, index) => `exec-${index}`);
    const decisions = await Promise.all(
      executions.map((executionId) => claim(store, executionId, liveness(...executions))),
    );
    expect(decisions.filter((decision) => decision.claimed)).toHaveLength(1);
    expect(decisions.filter((decision) => !decision.claimed)).toHaveLength(5);
    expect(await store.list(keys.claimPrefix(jobId))).toEqual([keys.claim(jobId, 1)]);
  });
});

describe("claimJob for a prompt job", () => {
  const promptsJobId = "pr-00000000000000000001";
  const manifest = { bucket: "voxtrail-local", key: "incoming/prompts/menu.csv", etag: '"def"' };
  const claimPrompts = (store: DirectoryStore, executionId: string, running = liveness()) =>
    claimJob(store, running, promptsRunEnding, { jobId: promptsJobId, executionId, source: manifest, now });

  /** A prompts report with `failed` failed prompts and `notRun` never run, of three. */
  async function writePromptsReport(store: DirectoryStore, failed: number, notRun: number) {
    const report: PromptsReport = {
      schemaVersion: 1,
      jobId: promptsJobId,
      manifest: {
        kind: "prompt-manifest",
        uri: "file:///m",
        key: manifest.key,
        sha256: "0".repeat(64),
        bytes: 1,
        contentType: "text/csv",
      },
      totals: {
        rows: 4,
        succeeded: 3 - failed - notRun,
        failed,
        notRun,
        badRows: 1,
        audioBytes: 0,
        audioMs: 0,
      },
      prompts: [],
      badRows: [],
    };
    await store.put(promptKeys.report(promptsJobId), JSON.stringify(report), {
      contentType: "application/json",
    });
  }

  it("is a duplicate in progress while the claiming execution runs, even beside an earlier run's report", async () => {
    const store = await freshStore();
    await writePromptsReport(store, 1, 0);
    expect(await claimPrompts(store, "exec-a", liveness("exec-a"))).toEqual({ claimed: true, run: 1 });
    expect(await claimPrompts(store, "exec-b", liveness("exec-a"))).toMatchObject({
      claimed: false,
      duplicate: { reason: "in-progress", executionId: "exec-a", run: 1 },
    });
  });

  it("is a duplicate of a completed job once the report says every prompt succeeded (bad rows aside)", async () => {
    const store = await freshStore();
    await claimPrompts(store, "exec-a");
    await writePromptsReport(store, 0, 0);
    expect(await claimPrompts(store, "exec-b", liveness("exec-a"))).toMatchObject({
      claimed: false,
      duplicate: { reason: "completed", executionId: "exec-a", run: 1 },
    });
  });

  it.each([
    ["failed", 1, 0],
    ["not-run", 0, 1],
  ])("claims the next run once a run with %s prompts has ended", async (_, failed, notRun) => {
    const store = await freshStore();
    await claimPrompts(store, "exec-a");
    await writePromptsReport(store, failed, notRun);
    expect(await claimPrompts(store, "exec-b")).toEqual({ claimed: true, run: 2 });
    expect(await store.list(keys.claimPrefix(promptsJobId))).toEqual([
      keys.claim(promptsJobId, 1),
      keys.claim(promptsJobId, 2),
    ]);
  });
});
