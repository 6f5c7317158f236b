import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ActivityRecord, JobReport, OutcomeDetail } from "@voxtrail/core";
import { createStageHandlers } from "@voxtrail/functions";
import {
  BUNDLED_RECORDS_FILE,
  type ExecutionResult,
  LOCAL_FUNCTION_ARNS,
  LocalStateMachine,
  localDependencies,
  objectCreatedEvent,
  type SonicEndpoint,
  type StateTransition,
  startSonicEndpoint,
} from "@voxtrail/local";
import {
  buildVoicemailDefinition,
  FUNCTION_TIMEOUT_MARGIN_SECONDS,
  keys,
  STAGE_FUNCTIONS,
} from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BAD_FIXTURES_DIR } from "../../scripts/make-bad-fixtures";
import { SIMULATED_TRANSCRIBER } from "../support/simulated-transcriber";

/**
 * Synthesize's function may run one second here (its Task state the margin longer, as the stacks
 * deploy them); the endpoint holds its first audio back for longer than the function may run.
 */
const SYNTHESIZE_FUNCTION_SECONDS = 1;
const SYNTHESIZE_TASK_SECONDS = SYNTHESIZE_FUNCTION_SECONDS + FUNCTION_TIMEOUT_MARGIN_SECONDS;
const FIRST_AUDIO_DELAY_MS = 3000;

let workDir: string;
let endpoint: SonicEndpoint;
let result: ExecutionResult;
let jobId: string;
const transitions: StateTransition[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-stage-timeout-"));
  endpoint = await startSonicEndpoint({ faults: { firstByteDelayMs: FIRST_AUDIO_DELAY_MS } });
  const deps = await localDependencies({
    storeDir: join(workDir, "store"),
    recordsFile: BUNDLED_RECORDS_FILE,
    endpoint,
    // One execution per job here: no other execution can own it.
    executions: { isRunning: async () => false },
    // What is heard does not matter here, only that the job reaches Synthesize.
    providers: SIMULATED_TRANSCRIBER,
  });
  const handlers = createStageHandlers(deps);
  const machine = new LocalStateMachine(
    "voxtrail-stage-timeout",
    buildVoicemailDefinition({
      functionArns: LOCAL_FUNCTION_ARNS,
      timeoutSeconds: { Synthesize: SYNTHESIZE_TASK_SECONDS },
    }),
    Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [LOCAL_FUNCTION_ARNS[fn], handlers[fn]])),
  );
  // Three seconds of silence: the shortest voicemail that goes all the way to Synthesize.
  const stored = await deps.store.put(
    keys.incomingVoicemail("silence.wav"),
    await readFile(join(BAD_FIXTURES_DIR, "silence.wav")),
    { contentType: "audio/wav" },
  );
  result = await machine.start(objectCreatedEvent(deps.store.bucket, stored, new Date()), {
    retryIntervalMs: 1,
    onTransition: (transition) => transitions.push(transition),
  });
  const reports = await readdir(join(workDir, "store", "reports"));
  jobId = (reports[0] ?? "").replace(/\.json$/, "");
}, 180_000);

afterAll(async () => {
  await endpoint.close();
  await rm(workDir, { recursive: true, force: true });
});

async function json(key: string): Promise<unknown> {
  return JSON.parse(await readFile(join(workDir, "store", key), "utf8"));
}

describe("a Synthesize attempt that outlives its function's timeout", () => {
  it("fails the execution in Synthesize with the function's own StageTimedOut, before the state's timeout, without retrying it", () => {
    expect(result).toMatchObject({ status: "FAILED", error: "SynthesizeFailed" });
    expect(result.status === "FAILED" ? result.cause : "").toMatch(/^StageTimedOut: /);
    const synthesize = transitions.filter((transition) => transition.state === "Synthesize");
    expect(synthesize.map((transition) => transition.type)).toEqual([
      "entered",
      "failed",
      "caught",
      "exited",
    ]);
    // The function's deadline came first; the state's TimeoutSeconds (the margin later) never fired.
    const [entered, failed] = synthesize;
    expect((failed?.timestamp ?? Infinity) - (entered?.timestamp ?? 0)).toBeLessThan(
      SYNTHESIZE_TASK_SECONDS * 1000,
    );
    expect(transitions.some((transition) => transition.state === "RecordSynthesizeFailure")).toBe(true);
  });

  it("writes a job report that names the stage and the error", async () => {
    const report = JobReport.parse(await json(keys.report(jobId)));
    expect(report.outcome).toBe("failed");
    expect(report.failure).toMatchObject({ stage: "Synthesize", error: { name: "StageTimedOut" } });
    expect(report.stages.map((stage) => stage.stage)).toEqual(["Ingest", "Transcribe", "Reason"]);
    expect(report.artifacts.map((artifact) => artifact.kind)).not.toContain("reply-audio");
  });

  it("records the timed-out attempt as failed, and never as succeeded when its work ends late", async () => {
    const key = keys.lineage(jobId, "Synthesize", 1);
    // The attempt's own record comes at its deadline; the synthesis it started ends after the
    // endpoint's delay. Wait past both: the one record must still say failed.
    await new Promise((resolve) => setTimeout(resolve, FIRST_AUDIO_DELAY_MS + 1000));
    const record = ActivityRecord.parse(await json(key));
    expect(record).toMatchObject({
      stage: "Synthesize",
      outcome: "failed",
      error: { name: "StageTimedOut" },
    });
    expect(await readdir(join(workDir, "store", keys.lineagePrefix(jobId)))).not.toContain(
      "synthesize-02.json",
    );
  }, 60_000);

  it("announces the failure with an outcome event naming the stage and the error", async () => {
    const names = await readdir(join(workDir, "store", "events", jobId));
    const details = await Promise.all(
      names.map(async (name) =>
        OutcomeDetail.parse(((await json(`events/${jobId}/${name}`)) as { detail: unknown }).detail),
      ),
    );
    expect(details).toEqual([
      expect.objectContaining({ outcome: "failed", failedStage: "Synthesize", errorName: "StageTimedOut" }),
    ]);
  });
});
