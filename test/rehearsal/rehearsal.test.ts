import { beforeAll, describe, expect, inject, it } from "vitest";
import { Rehearsal, type RehearsalReport } from "./rehearsal";
import { evaluateStage } from "./stage-evaluation";

/** Runs every workflow of `stage` under its deployed policies and returns the report. */
async function rehearse(stage: string): Promise<RehearsalReport> {
  const plan = await evaluateStage(stage);
  const rehearsal = await Rehearsal.start({ plan, motoEndpoint: inject("motoEndpoint") });
  try {
    return await rehearsal.run();
  } finally {
    await rehearsal.close();
  }
}

describe("the dev stage rehearsed under the policies it deploys", () => {
  let report: RehearsalReport;
  beforeAll(async () => {
    report = await rehearse("dev");
  }, 600_000);

  it("runs a voicemail, duplicate deliveries (after and during), a non-audio file, prompts, a rerun, a batch", () => {
    expect(report.runs.map((run) => [run.workflow, run.ok, run.status])).toEqual([
      ["voicemail", true, "SUCCEEDED"],
      ["duplicate", true, "SUCCEEDED"],
      ["duplicateWhileRunning", true, "SUCCEEDED"],
      ["invalidAudio", true, "FAILED"],
      ["prompts", true, "SUCCEEDED"],
      ["promptsRerun", true, "SUCCEEDED"],
      ["batch", true, "SUCCEEDED"],
    ]);
    expect(report.ok).toBe(true);
  });

  it("authorizes every call with one of the caller's own statements, and refuses none", () => {
    const decisions = report.calls.flatMap((call) => call.decisions.map((decision) => ({ call, decision })));
    expect(decisions.length).toBeGreaterThan(100);
    expect(decisions.filter(({ decision }) => !decision.allowed)).toEqual([]);
    for (const { call, decision } of decisions) {
      expect(decision.statement, `${call.principal} ${decision.action}`).toBeDefined();
    }
    // Each function acted under its own role, every S3 call under the stage's TLS-only bucket policy.
    const byPrincipal = new Map(report.calls.map((call) => [call.principal, call.decisions[0]?.role]));
    expect(byPrincipal.get("StageIngest")).toBe("StageIngestRole");
    expect(byPrincipal.get("PromptSynthesizePrompt")).toBe("PromptSynthesizePromptRole");
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

  it("says which providers it redirected and the boundary each keeps", () => {
    expect(report.redirects.join("\n")).toMatch(
      /api\.cartesia\.ai -> http:\/\/127\.0\.0\.1:\d+ .*third-party boundary api\.cartesia\.ai/,
    );
    expect(report.redirects.join("\n")).toMatch(/voxtrail-dev-sonic .*boundary stays aws-account/);
  });
});

describe("the production stage rehearsed under the policies it deploys", () => {
  let report: RehearsalReport;
  beforeAll(async () => {
    report = await rehearse("production");
  }, 600_000);

  it("stops every voicemail at Transcribe with BoundaryViolation until an in-account transcriber exists", () => {
    const voicemail = report.runs.find((run) => run.workflow === "voicemail");
    expect(voicemail).toMatchObject({ status: "FAILED", error: "TranscribeFailed" });
    expect(voicemail?.cause).toMatch(/^BoundaryViolation/);
    expect(report.runs.every((run) => run.ok)).toBe(true);
    expect(report.calls.flatMap((call) => call.decisions).filter((d) => !d.allowed)).toEqual([]);
  });

  it("runs prompts and batches on its own endpoint and Object-Locked, lineage-protected bucket", () => {
    expect(report.runs.filter((run) => run.workflow !== "voicemail" && run.workflow !== "duplicate")).toEqual(
      expect.arrayContaining([expect.objectContaining({ workflow: "prompts", status: "SUCCEEDED" })]),
    );
  });
});
