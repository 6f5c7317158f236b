import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { JobReport, VoicemailRecord } from "@voxtrail/core";
import { CALL_REVIEW_THRESHOLD, REVIEW_THRESHOLD } from "@voxtrail/providers";
import { beforeAll, describe, expect, it } from "vitest";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const UNCLEAR = fileURLToPath(new URL("../../fixtures/review/billing-unclear.wav", import.meta.url));
const workDir = temporaryDirectory("voxtrail-review-");

/**
 * The real engines on a voice no tuning step has heard: the billing voicemail spoken by espeak-ng
 * (fixtures/review/, made by scripts/make-fixtures.ts), as a phone line delivers it. Pocketsphinx
 * hears a callback number there with a confidence far below the threshold.
 */
describe("voxtrail run on a voicemail the transcriber cannot make out", () => {
  let stdout: string;
  let code: number;
  let record: VoicemailRecord;
  let report: JobReport;

  beforeAll(async () => {
    const store = join(workDir(), "store");
    ({ stdout, code } = await runCli(["run", UNCLEAR, "--store", store]));
    const [reportFile] = await readdir(join(store, "reports"));
    report = JobReport.parse(JSON.parse(await readFile(join(store, "reports", reportFile!), "utf8")));
    const recordKey = report.artifacts.find((artifact) => artifact.kind === "record")!.key;
    record = VoicemailRecord.parse(JSON.parse(await readFile(join(store, recordKey), "utf8")));
  }, 300_000);

  it("marks in the record every fact heard below the threshold, and holds none above it but for its length", () => {
    expect(code).toBe(0);
    const unsure = Object.entries(record.confidence ?? {})
      .filter(([, confidence]) => confidence < REVIEW_THRESHOLD)
      .map(([fact]) => fact);
    expect(unsure).toContain("callbackNumber");
    const held = (record.review ?? []).map((review) => review.fact);
    expect(held).toEqual(expect.arrayContaining(unsure));
    for (const review of record.review ?? []) {
      if (review.threshold === CALL_REVIEW_THRESHOLD) {
        // The whole call was too little made out: the entry carries the call's mean.
        expect(review.confidence).toBeLessThan(CALL_REVIEW_THRESHOLD);
        continue;
      }
      expect(review.confidence).toBe(record.confidence?.[review.fact]);
      expect(review.threshold).toBe(REVIEW_THRESHOLD);
      if (review.confidence >= REVIEW_THRESHOLD) expect(review.reason).toMatch(/^heard with \d+ digits/);
    }
  });

  it("states no held fact in the reply: it asks the caller to call back instead", () => {
    const heard = record.entities.callbackNumber;
    expect(heard).toMatch(/^\d+$/);
    expect(record.replyText).not.toContain(heard);
    expect(record.replyText).not.toMatch(/\d/);
    expect(record.replyText).toMatch(/couldn't make out .*the number to call you back on/);
    expect(record.reply?.template).toBe("unsure");
  });

  it("lists the job as needing review in the report and in the run's summary, naming the fact, not its value", () => {
    expect(report.review?.map((held) => held.fact)).toContain("callbackNumber");
    expect(stdout).toMatch(/REVIEW callbackNumber/);
    expect(stdout).toMatch(/1 need review, listed below/);
    expect(stdout).not.toContain(record.entities.callbackNumber);
  });
});
