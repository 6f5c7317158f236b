import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLED_VOICEMAILS_DIR } from "@voxtrail/local";
import { jobIdFor, keys, ObjectCreatedEvent, sourceIdentityOf } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StageStandIn } from "../support/stage-stand-in";
import { runOnStage, runStopped } from "./run-cli";

// The shortest bundled voicemail (the stand-in's transcriber is simulated).
const VOICEMAIL = join(BUNDLED_VOICEMAILS_DIR, "no-message.wav");

let workDir: string;
let standIn: StageStandIn;

/** The fixture voicemail under another name, so each case has its own key and action. */
async function voicemailNamed(name: string): Promise<string> {
  const path = join(workDir, name);
  await copyFile(VOICEMAIL, path);
  return path;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-run-stage-"));
  standIn = await StageStandIn.start(`e2e${process.pid}`, (key) => {
    if (key.endsWith("hang-up.wav")) return "stop";
    if (key.endsWith("stuck.wav")) return "leave";
    return "run";
  });
});

afterAll(async () => {
  await standIn?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe("voxtrail run --stage (moto_server: SSM, S3, EventBridge, Step Functions)", () => {
  it("uploads to the stage's bucket, finds the execution EventBridge started, and reports the job", async () => {
    const { code, stdout, stderr } = await runOnStage("run", standIn.stage, VOICEMAIL, "--json");
    expect(code, stderr).toBe(0);

    // What the stand-in received: the real S3 event moto delivered, and the execution it started.
    const handled = await standIn.handled(keys.incomingVoicemail("no-message.wav"));
    expect(handled?.action).toBe("run");
    const event = ObjectCreatedEvent.parse(handled?.event);
    const jobId = jobIdFor(sourceIdentityOf(event));

    expect(stderr).toContain(
      `voxtrail: 1 voicemail(s) to stage ${standIn.stage} (s3://${standIn.resources.bucket}, us-east-1)`,
    );
    expect(stderr).toMatch(
      new RegExp(`ok {3}no-message\\.wav {2}${jobId} {2}ingest [\\d.]+ m?s · transcribe .* · end-to-end `),
    );
    expect(stderr).toMatch(
      /1 job\(s\): 1 succeeded, 0 failed in [\d.]+ s; artifacts, lineage and reports in s3:\/\//,
    );
    const [result] = JSON.parse(stdout);
    expect(result).toMatchObject({
      status: "SUCCEEDED",
      jobId,
      key: "incoming/voicemail/no-message.wav",
      // The execution the CLI followed is the one EventBridge's target started (moto keeps it RUNNING).
      executions: [{ executionArn: handled?.executionArn, status: "RUNNING" }],
      report: {
        outcome: "succeeded",
        source: { bucket: standIn.resources.bucket, versionId: event.detail.object["version-id"] },
      },
    });
    expect(result.report.stages.map((stage: { stage: string }) => stage.stage)).toEqual([
      "Ingest",
      "Transcribe",
      "Reason",
      "Synthesize",
    ]);
  }, 180_000);

  it("runs a voicemail whose name S3's event encoding changes, and follows it to its report", async () => {
    const name = "a b+c%ü.wav";
    const { code, stdout, stderr } = await runOnStage(
      "run",
      standIn.stage,
      await voicemailNamed(name),
      "--json",
    );
    expect(code, stderr).toBe(0);
    // The execution's event carries the key form-encoded, as S3 sends it; every reader decodes it.
    const handled = await standIn.handled(keys.incomingVoicemail(name));
    const event = ObjectCreatedEvent.parse(handled?.event);
    expect(event.detail.object.key).toBe("incoming/voicemail/a+b%2Bc%25%C3%BC.wav");
    const [result] = JSON.parse(stdout);
    expect(result).toMatchObject({
      status: "SUCCEEDED",
      jobId: jobIdFor(sourceIdentityOf(event)),
      key: keys.incomingVoicemail(name),
      report: { source: { key: keys.incomingVoicemail(name) } },
    });
  }, 180_000);

  it("reports a job whose execution was stopped without a report as failed with its status", async () => {
    const path = await voicemailNamed("hang-up.wav");
    const { stdout, source } = await runStopped(standIn, "run", path, keys.incomingVoicemail("hang-up.wav"));
    const jobId = jobIdFor(source);
    expect(stdout).toContain(
      `FAIL hang-up.wav  ${jobId}  ABORTED: the execution ended ABORTED without a job report\n`,
    );
    expect(stdout).toMatch(/1 job\(s\): 0 succeeded, 1 failed/);
  }, 60_000);

  it("gives up at the timeout on a job still running, naming it", async () => {
    const stuck = await voicemailNamed("stuck.wav");
    const { code, stdout } = await runOnStage("run", standIn.stage, stuck, "--timeout", "3");
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /FAIL stuck\.wav {2}vm-[0-9a-f]{20} {2}TimedOut: no job report within 3 s; the execution is still running\n/,
    );
  }, 60_000);

  it("names the missing stage parameter and the region, without a stack trace", async () => {
    const { code, stdout, stderr } = await runOnStage("run", "absent", VOICEMAIL);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      "voxtrail: stage absent is not deployed in us-east-1: no SSM parameter /voxtrail/absent/resources\n",
    );
  }, 60_000);
});
