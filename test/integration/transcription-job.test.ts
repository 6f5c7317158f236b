import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TranscribeClient } from "@aws-sdk/client-transcribe";
import { ActivityRecord } from "@voxtrail/core";
import { erase, LineageGraph, readLineage, transcribeJobDeleter, verify } from "@voxtrail/lineage";
import {
  ALL_LOCAL,
  BUNDLED_VOICEMAILS_DIR,
  collectInputFiles,
  type JobProgress,
  type JobResult,
  LocalRuntime,
  startTranscribeEndpoint,
  type TranscribeEndpoint,
  type TranscribeEndpointFaults,
} from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { keys, MAX_TRANSCRIPTION_WAITS, TRANSCRIPTION_JOB_STATES } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** One voicemail through the workflow with Transcribe as a job, against a stand-in showing `faults`. */
interface TranscriptionRun {
  result: JobResult;
  records: ActivityRecord[];
  transitions: JobProgress[];
  endpoint: TranscribeEndpoint;
  client: TranscribeClient;
  store: DirectoryStore;
}

let workDir: string;
const runs: Record<string, TranscriptionRun> = {};
/** The stand-ins stay up until the end: the erasure test deletes a job on one. */
const endpoints: TranscribeEndpoint[] = [];

/** A wait for a job's event: longer than pocketsphinx takes on a short call, so the event ends it. */
const TRANSCRIBING_WAIT_MS = 60_000;

async function runWith(
  name: string,
  faults: TranscribeEndpointFaults,
  transcriptionWaitMs = TRANSCRIBING_WAIT_MS,
  { deliverEvents = true } = {},
): Promise<TranscriptionRun> {
  const storeDir = join(workDir, name, "store");
  const inputs = join(workDir, name, "inputs");
  await mkdir(inputs, { recursive: true });
  await copyFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"), join(inputs, "call.wav"));
  const store = new DirectoryStore({ root: storeDir });
  // The stage's rule on Transcribe's job events, delivering to the runtime started below.
  let runtime: LocalRuntime | undefined;
  const endpoint = await startTranscribeEndpoint({
    store,
    faults,
    onJobStateChange: (event) => (deliverEvents ? runtime?.deliverTranscriptionEvent(event) : undefined),
  });
  endpoints.push(endpoint);
  const client = new TranscribeClient({
    endpoint: endpoint.url,
    region: "eu-west-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  runtime = await LocalRuntime.start({
    storeDir,
    providers: { ...ALL_LOCAL, transcriber: "amazon-transcribe" },
    providerClients: { transcribe: client },
    retryIntervalMs: 10,
    transcriptionWaitMs,
  });
  const transitions: JobProgress[] = [];
  try {
    const [result] = await runtime.run(await collectInputFiles([inputs]), {
      concurrency: 1,
      onProgress: (progress) => transitions.push(progress),
    });
    await endpoint.settled();
    const dir = join(storeDir, keys.lineagePrefix((result as JobResult).jobId));
    const records: ActivityRecord[] = [];
    for (const file of (await readdir(dir)).filter((entry) => entry.endsWith(".json")).sort()) {
      records.push(ActivityRecord.parse(JSON.parse(await readFile(join(dir, file), "utf8"))));
    }
    return { result: result as JobResult, records, transitions, endpoint, client, store };
  } finally {
    await runtime.close();
  }
}

const transcribeRecords = (run: TranscriptionRun) => run.records.filter((r) => r.stage === "Transcribe");
const retriedStates = (run: TranscriptionRun) =>
  run.transitions.flatMap((p) =>
    p.type === "stage" && p.transition.type === "retried" ? [p.transition.state] : [],
  );

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-transcription-job-"));
  // One at a time: each runs pocketsphinx at most once, on a short voicemail.
  runs.lostStartAnswer = await runWith("lost-start-answer", { loseStartAnswers: 1 });
  // Four: more than the SDK's own three attempts, so the await step's look fails and the state
  // machine retries it.
  runs.throttledLooks = await runWith("throttled-looks", { throttleGets: 4 });
  // The job's event never arrives: the wait's safety net looks at the job and finds it ended.
  runs.lostEvent = await runWith("lost-event", {}, 2000, { deliverEvents: false });
  runs.failedJob = await runWith("failed-job", {
    failJobsWith: "The media format provided does not match the detected media format.",
  });
  runs.stalledJob = await runWith("stalled-job", { stallJobs: true }, 10);
  runs.refusedStart = await runWith("refused-start", {
    refuseStarts: "The specified S3 URI is not valid audio.",
  });
}, 600_000);

afterAll(async () => {
  for (const endpoint of endpoints) await endpoint.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("Transcribe as an Amazon Transcribe job (start, wait for its event, read), against the local stand-in", () => {
  it("a start whose answer was lost finds its own job on retry: one job, one transcript, one record", () => {
    const run = runs.lostStartAnswer as TranscriptionRun;
    expect(run.result.status).toBe("SUCCEEDED");
    expect(run.endpoint.requests().StartTranscriptionJob).toBe(2);
    expect(run.endpoint.jobNames()).toEqual([`voxtrail-${run.result.jobId}-run-1`]);
    const [record] = transcribeRecords(run);
    expect(transcribeRecords(run)).toHaveLength(1);
    expect(record).toMatchObject({
      outcome: "succeeded",
      processors: [
        {
          provider: "amazon-transcribe",
          boundary: { kind: "aws-account", service: "transcribe", region: "eu-west-1" },
        },
      ],
      serviceJob: {
        service: "amazon-transcribe",
        name: `voxtrail-${run.result.jobId}-run-1`,
        input: `s3://voxtrail-local/${keys.artifact(run.result.jobId, "normalized.wav")}`,
        output: `s3://voxtrail-local/${keys.artifact(run.result.jobId, "transcribe-output.json")}`,
      },
    });
    expect(record?.outputs.map((output) => output.kind)).toEqual(["transcription-output", "transcript"]);
    expect(record?.timings.map((timing) => timing.name)).toEqual(
      expect.arrayContaining(["transcribe.engine", "transcribe.duration"]),
    );
  });

  it("is resumed by the job's event: one wait, one look at the job before it and one by the read", () => {
    const run = runs.lostStartAnswer as TranscriptionRun;
    expect(transcribeRecords(run)[0]?.serviceJob?.waits).toBe(1);
    expect(run.endpoint.requests().GetTranscriptionJob).toBe(2);
  });

  it("a throttled look at the job is retried by the state machine, and the job still completes", () => {
    const run = runs.throttledLooks as TranscriptionRun;
    expect(run.result.status).toBe("SUCCEEDED");
    expect(retriedStates(run)).toEqual([TRANSCRIPTION_JOB_STATES.await]);
    expect(run.endpoint.requests().GetTranscriptionJob).toBeGreaterThanOrEqual(5);
  });

  it("a lost event costs a wait: its safety net looks at the job again and finds it ended", () => {
    const run = runs.lostEvent as TranscriptionRun;
    expect(run.result.status).toBe("SUCCEEDED");
    expect(transcribeRecords(run)[0]?.serviceJob?.waits).toBeGreaterThanOrEqual(2);
  });

  it("a job that ends FAILED fails the stage with the service's reason, recorded once", () => {
    const run = runs.failedJob as TranscriptionRun;
    expect(run.result).toMatchObject({ status: "FAILED", error: { error: "TranscribeFailed" } });
    expect(run.result.error?.cause).toMatch(
      /^TranscriptionJobFailed: .*does not match the detected media format/,
    );
    expect(transcribeRecords(run)).toMatchObject([
      {
        outcome: "failed",
        error: { name: "TranscriptionJobFailed" },
        serviceJob: { name: `voxtrail-${run.result.jobId}-run-1` },
      },
    ]);
  });

  it(`a job that never ends fails the stage with TranscriptionTimedOut after ${MAX_TRANSCRIPTION_WAITS} waits`, () => {
    const run = runs.stalledJob as TranscriptionRun;
    expect(run.result).toMatchObject({ status: "FAILED", error: { error: "TranscribeFailed" } });
    expect(run.result.error?.cause).toMatch(
      new RegExp(`^TranscriptionTimedOut: .*IN_PROGRESS after ${MAX_TRANSCRIPTION_WAITS} waits`),
    );
    // One look per wait, and the read step's.
    expect(run.endpoint.requests().GetTranscriptionJob).toBe(MAX_TRANSCRIPTION_WAITS + 1);
    expect(transcribeRecords(run)).toMatchObject([
      { outcome: "failed", error: { name: "TranscriptionTimedOut" } },
    ]);
  });

  it("a start the service refuses fails the stage at once, the refusal recorded and nothing looked at", () => {
    const run = runs.refusedStart as TranscriptionRun;
    expect(run.result).toMatchObject({ status: "FAILED", error: { error: "TranscribeFailed" } });
    expect(run.result.error?.cause).toMatch(/^TranscriptionRefused: /);
    expect(run.endpoint.requests().GetTranscriptionJob).toBeUndefined();
    expect(transcribeRecords(run)).toMatchObject([
      { outcome: "failed", error: { name: "TranscriptionRefused" } },
    ]);
  });

  it("erasing the voicemail deletes the Transcribe job and its output document with the chain", async () => {
    const run = runs.lostStartAnswer as TranscriptionRun;
    const { store, result } = run;
    const graph = LineageGraph.of(await readLineage(store, {}));
    const erased = await erase(store, graph, result.key, {
      deleteServiceJob: transcribeJobDeleter(run.client),
    });
    const jobName = `voxtrail-${result.jobId}-run-1`;
    expect(erased.serviceJobs).toEqual([{ service: "amazon-transcribe", name: jobName, deleted: "deleted" }]);
    expect(run.endpoint.jobNames()).toEqual([]);
    expect(erased.erased.map((artifact) => artifact.kind)).toContain("transcription-output");
    expect(await store.head(keys.artifact(result.jobId, "transcribe-output.json"))).toBeUndefined();
    const record = JSON.parse((await store.getBytes(keys.erasure(result.jobId))).toString("utf8"));
    expect(record.serviceJobs).toEqual([{ service: "amazon-transcribe", name: jobName, deleted: "deleted" }]);
    const verified = await verify(store, LineageGraph.of(await readLineage(store, {})));
    expect(verified.ok).toBe(true);
  });
});
