import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { ActivityRecord, Transcriber } from "@voxtrail/core";
import { SimulatedTranscriber } from "@voxtrail/providers";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { CallRecord } from "../../src/rehearsal/authorizing-proxy";
import { Rehearsal, type RehearsalReport, UPLOAD_NAMES } from "../../src/rehearsal/rehearsal";
import type { SonicAsked } from "../../src/rehearsal/sonic-stand-in";
import { evaluateStage } from "../../src/rehearsal/stage-evaluation";
import type { StagePlan } from "../../src/rehearsal/stage-plan";

/** What both stages must do: every workflow as expected ([workflow, ok, status], in run order). */
const EVERY_WORKFLOW_AS_EXPECTED = [
  ["voicemail", true, "SUCCEEDED"],
  ["lineageIndex", true, "SUCCEEDED"],
  ["lineageDigest", true, "SUCCEEDED"],
  ["duplicate", true, "SUCCEEDED"],
  ["duplicateWhileRunning", true, "SUCCEEDED"],
  ["invalidAudio", true, "FAILED"],
  ["prompts", true, "SUCCEEDED"],
  ["promptsRerun", true, "SUCCEEDED"],
  ["promptsStopped", true, "ABORTED"],
  ["batch", true, "SUCCEEDED"],
  ["batchStopped", true, "ABORTED"],
  ["lineageIndexUpdate", true, "SUCCEEDED"],
];

/**
 * {@link rehearse}, with the plan it ran (its bucket stays in moto_server, with what the run wrote);
 * `transcriber` behind the stage's transcription stand-in, pocketsphinx by default.
 */
async function rehearseStage(
  stage: string,
  transcriber?: Transcriber,
): Promise<{ plan: StagePlan; report: RehearsalReport }> {
  const plan = await evaluateStage(stage);
  const rehearsal = await Rehearsal.start({
    plan,
    motoEndpoint: inject("motoEndpoint"),
    ...(transcriber ? { transcriber } : {}),
  });
  try {
    return { plan, report: await rehearsal.run() };
  } finally {
    await rehearsal.close();
  }
}

/** Every activity record the run wrote into `bucket` (lineage/), read straight from moto_server. */
async function activityRecords(bucket: string): Promise<ActivityRecord[]> {
  const s3 = new S3Client({
    endpoint: inject("motoEndpoint"),
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  });
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: "lineage/", ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((object) => object.Key as string));
    token = page.NextContinuationToken;
  } while (token);
  return Promise.all(
    keys.map(async (key) => {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return JSON.parse(await (object.Body?.transformToString() ?? "{}")) as ActivityRecord;
    }),
  );
}

/** The text of every object under `prefix` in `bucket` whose key ends with `suffix`, read straight from moto_server. */
async function objectTexts(bucket: string, prefix: string, suffix: string): Promise<Map<string, string>> {
  const s3 = new S3Client({
    endpoint: inject("motoEndpoint"),
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
  });
  const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  const texts = new Map<string, string>();
  for (const { Key: key } of page.Contents ?? []) {
    if (!key?.endsWith(suffix)) continue;
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    texts.set(key, (await object.Body?.transformToString()) ?? "");
  }
  return texts;
}

/** The IAM decisions `principal` needed, as `action resource` (allowed or not). */
const decisionsOf = (calls: CallRecord[], principal: string) =>
  calls.filter((call) => call.principal === principal).flatMap((call) => call.decisions);

describe("the dev stage rehearsed under the policies it deploys", () => {
  let report: RehearsalReport;
  let plan: StagePlan;
  beforeAll(async () => {
    ({ report, plan } = await rehearseStage("dev"));
  }, 600_000);

  it("runs a voicemail, duplicate deliveries (after and during), a non-audio file, prompts, a rerun, a batch, each Map stopped", () => {
    expect(report.runs.map((run) => [run.workflow, run.ok, run.status])).toEqual(EVERY_WORKFLOW_AS_EXPECTED);
    expect(report.ok).toBe(true);
  });

  it("reads each upload under the key it was given, though S3's event form-encodes it: Ingest, PreparePrompts, OpenBatch's ItemReader and the batch child's Ingest agree", () => {
    const object = (key: string) => `arn:aws:s3:::${plan.bucket}/${key}`;
    const voicemail = object(`incoming/voicemail/rehearsal-1/${UPLOAD_NAMES.voicemail}`);
    const reads = (principal: string) =>
      new Set(
        decisionsOf(report.calls, principal)
          .filter((d) => d.action.startsWith("s3:GetObject") && d.resource.startsWith(object("incoming/")))
          .map((d) => d.resource),
      );
    expect(reads("StageIngest")).toContain(voicemail);
    expect(reads("PromptPreparePrompts")).toEqual(
      new Set([
        object(`incoming/prompts/rehearsal-1/${UPLOAD_NAMES.prompts}`),
        object(`incoming/prompts/rehearsal-1/stopped-${UPLOAD_NAMES.prompts}`),
      ]),
    );
    const batch = plan.stateMachines.find((m) => m.logicalName === "VoicemailBatch")?.name ?? "";
    // The ItemReader read the manifest at the key OpenBatch decoded; each item heads its row's key.
    expect(reads(batch)).toEqual(
      new Set([
        object(`incoming/batches/rehearsal-1/${UPLOAD_NAMES.batch}`),
        voicemail,
        object("incoming/voicemail/rehearsal-1/missing.wav"),
        // The batch stopped while its voicemail execution ran.
        object(`incoming/batches/rehearsal-1/stopped-${UPLOAD_NAMES.batch}`),
        object("incoming/voicemail/rehearsal-1/stopped-damaged-order.wav"),
      ]),
    );
    const openBatch = plan.functions.find((f) => f.component === "BatchOpenBatch");
    expect(decisionsOf(report.calls, batch)).toContainEqual(
      expect.objectContaining({ action: "lambda:InvokeFunction", resource: openBatch?.arn, allowed: true }),
    );
    // OpenBatch itself calls nothing: it answers from its event.
    expect(decisionsOf(report.calls, "BatchOpenBatch")).toEqual([]);
    // The batch's row named the voicemail the first run ingested: the same job, a duplicate.
    expect(report.runs.find((run) => run.workflow === "batch")?.outcome).toBe(
      "SUCCEEDED [FAILED S3.NoSuchKeyException, duplicate]",
    );
  });

  it("authorizes every call with one of the caller's own statements, and refuses none", () => {
    const decisions = report.calls.flatMap((call) => call.decisions.map((decision) => ({ call, decision })));
    expect(decisions.length).toBeGreaterThan(100);
    // A call the mapping did not know is refused with no decision: each is named here.
    expect(report.calls.filter((call) => call.unmapped)).toEqual([]);
    expect(decisions.filter(({ decision }) => !decision.allowed)).toEqual([]);
    for (const { call, decision } of decisions) {
      expect(decision.statement, `${call.principal} ${decision.action}`).toBeDefined();
    }
    // Each function acted under its own role, every S3 call under the stage's TLS-only bucket policy.
    const byPrincipal = new Map(report.calls.map((call) => [call.principal, call.decisions[0]?.role]));
    expect(byPrincipal.get("StageIngest")).toBe("StageIngestRole");
    expect(byPrincipal.get("PromptSynthesizePrompt")).toBe("PromptSynthesizePromptRole");
  });

  it("has each role assumed by its service, and each function's logs written as its role, every one allowed", () => {
    const assumed = report.calls.filter((call) => call.service === "sts");
    expect(assumed).toHaveLength(
      plan.functions.length + plan.stateMachines.length + plan.rules.length + plan.schedules.length,
    );
    expect(assumed.find((call) => call.operation === "AssumeRole for rule VoicemailArrived")).toMatchObject({
      principal: "events.amazonaws.com",
      allowed: true,
      decisions: [{ role: "VoicemailArrivedRole", statement: { policy: "trust policy", index: 1 } }],
    });
    const logs = report.calls.filter((call) => call.service === "logs");
    expect(logs.map((call) => call.allowed)).toEqual(plan.functions.map(() => true));
  });

  it("exercises what the findings were about: both Sonic actions, ListBucket before a probe of a missing key", () => {
    const actions = (principal: string) =>
      report.calls
        .filter((call) => call.principal === principal)
        .flatMap((call) => call.decisions.map((d) => d.action));
    expect(actions("StageSynthesize")).toEqual(
      expect.arrayContaining(["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]),
    );
    // Only Reason reads the records object.
    const recordsReaders = report.calls
      .filter((call) => call.decisions.some((d) => d.resource.endsWith("/records/records.jsonl")))
      .map((call) => call.principal);
    expect(new Set(recordsReaders)).toEqual(new Set(["StageReason"]));
    expect(report.calls.filter((call) => call.modelled)).toEqual([]);
  });

  it("compacts the lineage index as the compactor's own role, touching only the summaries, the index and its symlinks", () => {
    const compactor = decisionsOf(report.calls, "LineageIndexCompactor");
    expect(new Set(compactor.map((d) => d.role))).toEqual(new Set(["LineageIndexCompactorRole"]));
    // Read the summaries and the index, wrote a generation and the symlinks, and on its second run
    // replaced the day's symlinks, deleting the versions they replaced by id.
    expect([...new Set(compactor.map((d) => d.action))]).toEqual(
      expect.arrayContaining(["s3:ListBucket", "s3:GetObject", "s3:PutObject", "s3:DeleteObjectVersion"]),
    );
    for (const decision of compactor) {
      expect(decision.resource).toMatch(
        /^arn:aws:s3:::[^/]+(\/(lineage-summaries|lineage-index|lineage-athena)\/.+)?$/,
      );
      if (decision.action !== "s3:GetObject" && decision.action !== "s3:ListBucket")
        expect(decision.resource).not.toMatch(/lineage-summaries/);
    }
    // Each time, an auditor's query of the four tables could read what the symlinks name, and only
    // through the reader policy.
    const auditor = report.calls.filter((call) => call.principal === "auditor (LineageIndexReader)");
    expect(auditor.map((call) => call.workflow)).toEqual(["lineageIndex", "lineageIndexUpdate"]);
    for (const call of auditor) {
      expect(call.allowed).toBe(true);
      expect(new Set(call.decisions.map((d) => d.statement?.policy))).toEqual(
        new Set(["LineageIndexReader"]),
      );
      expect(call.decisions.map((d) => d.resource)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/:workgroup\/voxtrail-dev-lineage$/),
          expect.stringMatching(/:table\/voxtrail_dev_lineage\/records$/),
          expect.stringMatching(/\/lineage-athena\/edges\/day=\d{4}-\d{2}-\d{2}\/manifest$/),
          expect.stringMatching(
            /\/lineage-index\/edges\/day=\d{4}-\d{2}-\d{2}\/g\d{12}-[0-9a-f]{8}\.parquet$/,
          ),
          expect.stringMatching(/\/athena-results\/[^/]+\.csv$/),
        ]),
      );
    }
  });

  it("says which providers it redirected and the boundary each keeps", () => {
    expect(report.redirects.join("\n")).toMatch(
      /api\.cartesia\.ai -> http:\/\/127\.0\.0\.1:\d+ .*third-party boundary api\.cartesia\.ai/,
    );
    expect(report.redirects.join("\n")).toMatch(/voxtrail-dev-sonic .*boundary stays aws-account/);
  });
});

describe("the production stage rehearsed under the policies it deploys", () => {
  let report: RehearsalReport;
  let plan: StagePlan;
  beforeAll(async () => {
    // What Transcribe hears is not the subject here: dev's rehearsal runs pocketsphinx behind its
    // Cartesia Ink stand-in, and test/e2e/amazon-transcribe-run behind the Transcribe stand-in.
    ({ report, plan } = await rehearseStage("production", new SimulatedTranscriber()));
  }, 600_000);

  it("runs a voicemail end to end with Amazon Transcribe, and every other workflow, refusing no call", () => {
    expect(report.runs.map((run) => [run.workflow, run.ok, run.status])).toEqual(EVERY_WORKFLOW_AS_EXPECTED);
    expect(report.ok).toBe(true);
    const decisions = report.calls.flatMap((call) => call.decisions);
    expect(report.calls.filter((call) => call.unmapped)).toEqual([]);
    expect(decisions.filter((d) => !d.allowed)).toEqual([]);
    for (const decision of decisions) expect(decision.statement, decision.action).toBeDefined();
    expect(report.redirects.join("\n")).toMatch(
      /Amazon Transcribe -> http:\/\/127\.0\.0\.1:\d+ .*boundary stays aws-account \(transcribe\)/,
    );
  });

  it("starts each job as the Transcribe function passing the data-access role, whose S3 access Transcribe uses, and waits for its event", () => {
    const bucket = `arn:aws:s3:::${plan.bucket}`;
    const transcribe = decisionsOf(report.calls, "StageTranscribe");
    // StartTranscriptionJob: on `*` (the action takes no resource type), its output held to the
    // stage's bucket and a job's output document; the function passes the data-access role to
    // Transcribe, which reads the media and writes the output with that role.
    const start = transcribe.find((d) => d.action === "transcribe:StartTranscriptionJob");
    expect(start).toMatchObject({
      resource: "*",
      allowed: true,
      context: {
        "transcribe:OutputBucketName": plan.bucket,
        "transcribe:OutputKey": expect.stringMatching(/^artifacts\/[^/]+\/transcribe-output\.json$/),
      },
    });
    const dataAccess = plan.serviceRoles.find((role) => role.logicalName === "TranscribeDataAccess");
    expect(transcribe.find((d) => d.action === "iam:PassRole")).toMatchObject({
      resource: dataAccess?.arn,
      allowed: true,
      context: { "iam:PassedToService": "transcribe.amazonaws.com" },
    });
    const onObject = (decisions: typeof transcribe, action: string, file: string) =>
      decisions.filter(
        (d) => d.action === action && new RegExp(`^${bucket}/artifacts/[^/]+/${file}$`).test(d.resource),
      );
    const asRole = decisionsOf(report.calls, "StageTranscribe").filter(
      (d) => d.role === "TranscribeDataAccess",
    );
    expect(onObject(asRole, "s3:GetObject", "normalized\\.wav").length).toBeGreaterThan(0);
    expect(onObject(asRole, "s3:PutObject", "transcribe-output\\.json").length).toBeGreaterThan(0);
    // ...and the read step reads the output back and writes the transcript, as the function.
    const asFunction = transcribe.filter((d) => d.role !== "TranscribeDataAccess");
    expect(onObject(asFunction, "s3:GetObject", "transcribe-output\\.json").length).toBeGreaterThan(0);
    expect(onObject(asFunction, "s3:PutObject", "transcript\\.json").length).toBeGreaterThan(0);
    expect(onObject(asFunction, "s3:PutObject", "transcribe-output\\.json")).toEqual([]);
    // The function looks at the stage's own jobs, by name, and resumes the waiting workflow.
    const looks = transcribe.filter((d) => d.action === "transcribe:GetTranscriptionJob");
    expect(looks.length).toBeGreaterThan(0);
    for (const look of looks) {
      expect(look.resource).toMatch(
        new RegExp(
          `^arn:aws:transcribe:${plan.region}:${plan.account}:transcription-job/voxtrail-production-[0-9A-Za-z._-]+$`,
        ),
      );
    }
    expect(transcribe.filter((d) => d.action === "states:SendTaskSuccess").length).toBeGreaterThan(0);
    // Each job's event reached the function through the rule, under its resource policy.
    const resumed = report.calls.filter((c) => c.principal === "rule TranscriptionEnded");
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.every((c) => c.allowed)).toBe(true);
    // No other principal calls Transcribe; no state machine does.
    const callers = new Set(report.calls.filter((c) => c.service === "transcribe").map((c) => c.principal));
    expect(callers).toEqual(new Set(["StageTranscribe"]));
  });

  it("records that production's boundary policy allowed caller audio into Amazon Transcribe in the account", async () => {
    const transcribed = (await activityRecords(plan.bucket)).filter(
      (record) => record.stage === "Transcribe" && record.outcome === "succeeded",
    );
    expect(transcribed.length).toBeGreaterThan(0);
    for (const record of transcribed) {
      expect(record.processors).toEqual([expect.objectContaining({ provider: "amazon-transcribe" })]);
      expect(record.serviceJob).toMatchObject({
        service: "amazon-transcribe",
        name: expect.stringMatching(/^voxtrail-production-/),
        output: expect.stringMatching(
          new RegExp(`^s3://${plan.bucket}/artifacts/.+/transcribe-output\\.json$`),
        ),
      });
      expect(record.policy).toMatchObject({ environment: "production", outcome: "allowed" });
      expect(record.policy?.flows).toContainEqual(
        expect.objectContaining({
          kind: "normalized-audio",
          provider: "amazon-transcribe",
          boundary: { kind: "aws-account", service: "transcribe", region: plan.region },
          allowed: true,
        }),
      );
      expect(record.policy?.flows.every((flow) => flow.allowed)).toBe(true);
    }
  });

  it("runs prompts and batches on its own endpoint and Object-Locked, lineage-protected bucket", () => {
    expect(report.runs.filter((run) => run.workflow !== "voicemail" && run.workflow !== "duplicate")).toEqual(
      expect.arrayContaining([expect.objectContaining({ workflow: "prompts", status: "SUCCEEDED" })]),
    );
  });
});

describe("a stage taking Spanish calls (production's file with es-US), its Spanish voicemail rehearsed", () => {
  let report: RehearsalReport;
  let plan: StagePlan;
  let asked: readonly SonicAsked[];
  beforeAll(async () => {
    // Production's stage file with `languages`, as a stage taking Spanish callers would deploy it;
    // its own stage name, so its bucket is its own in the shared moto_server.
    const production = JSON.parse(
      await readFile(new URL("../../../../config/stages/production.json", import.meta.url), "utf8"),
    );
    const configFile = join(tmpdir(), `voxtrail-rehearsal-spanish-${process.pid}.json`);
    await writeFile(configFile, JSON.stringify({ ...production, languages: ["en-US", "es-US"] }));
    plan = await evaluateStage("spanish", { configFile });
    const rehearsal = await Rehearsal.start({
      plan,
      motoEndpoint: inject("motoEndpoint"),
      transcriber: new SimulatedTranscriber(),
    });
    try {
      report = await rehearsal.run(["spanishVoicemail"]);
      asked = [...rehearsal.sonicAsked];
    } finally {
      await rehearsal.close();
    }
  }, 600_000);

  it("runs it through the Transcribe stand-in taking es-US, refusing no call", () => {
    expect(report.runs.map((run) => [run.workflow, run.ok, run.outcome])).toEqual([
      ["spanishVoicemail", true, "SUCCEEDED, Sonic asked es"],
    ]);
    expect(report.ok).toBe(true);
    expect(report.redirects.join("\n")).toMatch(
      /for es-US a transcript the rehearsal supplies, not Transcribe/,
    );
    const start = decisionsOf(report.calls, "StageTranscribe").find(
      (d) => d.action === "transcribe:StartTranscriptionJob",
    );
    expect(start).toMatchObject({ allowed: true });
  });

  it("gets a Spanish reply, which the Sonic stand-in is asked to speak with language es", async () => {
    const replies = [...(await objectTexts(plan.bucket, "artifacts/", "/reply.txt")).values()];
    expect(replies).toHaveLength(1);
    const reply = replies[0] as string;
    expect(reply).toMatch(
      /^Hola Maria, le habla .+ sobre el pedido 4271\. Lamentamos que haya llegado dañado/,
    );
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((request) => request.language === "es")).toBe(true);
    expect(asked.map((request) => request.transcript).join(" ")).toContain(reply.trim());
  });

  it("names es-US in the lineage of Transcribe, Reason and Synthesize", async () => {
    const records = await activityRecords(plan.bucket);
    for (const stage of ["Transcribe", "Reason", "Synthesize"]) {
      const record = records.find((each) => each.stage === stage && each.outcome === "succeeded");
      expect(record?.language, stage).toBe("es-US");
    }
  });
});
