import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import { parseWav } from "@voxtrail/audio";
import { PromptsReport } from "@voxtrail/core";
import {
  ObjectCreatedEvent,
  promptKeys,
  promptsJobIdFor,
  type StageResources,
  sourceIdentityOf,
  stageParameterName,
} from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { motoClientConfig } from "../setup/aws";
import { StageStandIn } from "../support/stage-stand-in";
import { runOnStage, runStopped } from "./run-cli";

/** Four rows, one of them (line 3) bad; short texts, since flite runs one child process per prompt. */
const MANIFEST = [
  "id,text,voice,format",
  "welcome,Welcome.,,",
  "empty,,,",
  "one,Press one.,,",
  "two,Press two.,,",
];

let workDir: string;
let standIn: StageStandIn;

/** The manifest under a name of its own, so each case has its own key and stand-in action. */
async function manifestNamed(name: string): Promise<string> {
  const path = join(workDir, name);
  await writeFile(path, `${MANIFEST.join("\n")}\n`);
  return path;
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-prompts-stage-"));
  standIn = await StageStandIn.start(
    `e2e-prompts${process.pid}`,
    (key) => {
      if (key.endsWith("hang-up.csv")) return "stop";
      if (key.endsWith("stuck.csv")) return "leave";
      return "run";
    },
    "prompts",
  );
});

afterAll(async () => {
  await standIn?.stop();
  await rm(workDir, { recursive: true, force: true });
});

describe("voxtrail prompts --stage (moto_server: SSM, S3, EventBridge, Step Functions)", () => {
  it("uploads the manifest, follows the execution EventBridge started, and names the bad row", async () => {
    const { code, stdout, stderr } = await runOnStage(
      "prompts",
      standIn.stage,
      await manifestNamed("menu.csv"),
      "--json",
    );
    expect(code, stderr).toBe(1);

    // What the stand-in received: the S3 event moto delivered, and the execution it started.
    const handled = await standIn.handled(promptKeys.incomingManifest("menu.csv"));
    expect(handled?.action).toBe("run");
    const jobId = promptsJobIdFor(sourceIdentityOf(ObjectCreatedEvent.parse(handled?.event)));
    // The job the CLI followed is the one PreparePrompts ran.
    expect(handled?.result?.jobId).toBe(jobId);

    expect(stderr).toContain(`to stage ${standIn.stage} (s3://${standIn.resources.bucket}, us-east-1)\n`);
    expect(stderr).toMatch(/bad {2}line 3 empty {2}PromptTextEmpty: /);
    expect(stderr).toMatch(
      new RegExp(
        `4 row\\(s\\): 3 succeeded, 0 failed, 1 bad row\\(s\\) in [\\d.]+ s; [\\d.]+ s of audio in s3://${standIn.resources.bucket}/prompts/${jobId}/, report prompts/${jobId}/report.json\\n`,
      ),
    );
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      status: "SUCCEEDED",
      jobId,
      key: "incoming/prompts/menu.csv",
      // The execution the CLI followed is the one EventBridge's target started (moto keeps it RUNNING).
      executions: [{ executionArn: handled?.executionArn, status: "RUNNING" }],
    });
    const report = PromptsReport.parse(result.report);
    expect(report.badRows.map((row) => [row.line, row.id, row.error])).toEqual([
      [3, "empty", "PromptTextEmpty"],
    ]);
    expect(report.prompts.map((prompt) => [prompt.line, prompt.id, prompt.status])).toEqual([
      [2, "welcome", "succeeded"],
      [4, "one", "succeeded"],
      [5, "two", "succeeded"],
    ]);

    // Each prompt's audio is in the stage's bucket, Connect-ready by its header.
    for (const prompt of report.prompts) {
      expect(prompt.key).toBe(promptKeys.audio(jobId, prompt.id));
      const object = await standIn.plumbing.s3.send(
        new GetObjectCommand({ Bucket: standIn.resources.bucket, Key: prompt.key }),
      );
      const info = parseWav(
        Buffer.from(
          await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
        ),
      );
      expect([info.encoding, info.sampleRate, info.channels, info.bitsPerSample]).toEqual([
        "pcm_mulaw",
        8000,
        1,
        8,
      ]);
      expect(info.durationMs).toBeGreaterThan(100);
    }
  }, 180_000);

  it("reports a job whose execution was stopped without a report as failed with its status", async () => {
    const path = await manifestNamed("hang-up.csv");
    const key = promptKeys.incomingManifest("hang-up.csv");
    const { stdout, source } = await runStopped(standIn, "prompts", path, key);
    const jobId = promptsJobIdFor(source);
    expect(stdout).toMatch(
      new RegExp(
        `^FAIL ${jobId} {2}ABORTED: the execution ended ABORTED without a prompts report\\nprompts job ${jobId} failed in [\\d.]+ s\\n$`,
      ),
    );
  }, 60_000);

  it("gives up at the timeout on a job still running, naming it", async () => {
    const timedOut =
      /^FAIL pr-[0-9a-f]{20} {2}TimedOut: no prompts report within 3 s; the execution is still running\n/;
    const stuck = await manifestNamed("stuck.csv");
    const { code, stdout } = await runOnStage("prompts", standIn.stage, stuck, "--timeout", "3");
    expect(code).toBe(1);
    expect(stdout).toMatch(timedOut);
    expect((await standIn.handled(promptKeys.incomingManifest("stuck.csv")))?.action).toBe("leave");
  }, 60_000);

  it("refuses a stage that does not deploy the prompts workflow, without a stack trace", async () => {
    const stage = `e2e-voicemail-only${process.pid}`;
    const { promptsStateMachineArn: _, ...voicemailOnly } = standIn.resources;
    const resources: StageResources = { ...voicemailOnly, stage };
    await new SSMClient(motoClientConfig()).send(
      new PutParameterCommand({
        Name: stageParameterName(stage),
        Type: "String",
        Value: JSON.stringify(resources),
      }),
    );
    const { code, stdout, stderr } = await runOnStage(
      "prompts",
      stage,
      await manifestNamed("menu-elsewhere.csv"),
    );
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `voxtrail: stage ${stage} does not deploy the prompts workflow: SSM parameter /voxtrail/${stage}/resources names no promptsStateMachineArn\n`,
    );
  }, 60_000);
});
