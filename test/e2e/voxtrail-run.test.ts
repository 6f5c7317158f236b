import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeMono16, encodeMuLaw, parseWav, resample, writeWav } from "@voxtrail/audio";
import {
  ActivityRecord,
  type Entities,
  type Intent,
  JobReport,
  Transcript,
  VoicemailRecord,
} from "@voxtrail/core";
import { BUNDLED_VOICEMAILS_DIR, FliteEngine, type JobResult } from "@voxtrail/local";
import { REVIEW_THRESHOLD } from "@voxtrail/providers";
import { beforeAll, describe, expect, it } from "vitest";
import { openLineageValidator } from "../support/openlineage-schema";
import { SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const workDir = temporaryDirectory("voxtrail-e2e-");

/**
 * What each bundled caller says that the embedded engines must get right: the intent, the key
 * entities and the business record from the 16 kHz copy; the intent from the telephony copy, which
 * pocketsphinx hears much worse (packages/providers/test/transcription-pocketsphinx.test.ts).
 */
const CALLERS: Record<string, { intent: Intent; entities: Entities; recordId?: string }> = {
  "damaged-order": {
    intent: "order-problem",
    entities: { orderNumber: "4271", callbackNumber: "5551234567" },
    recordId: "ord-4271",
  },
  reschedule: {
    intent: "reschedule",
    entities: { day: "Thursday", time: "3:30", callbackNumber: "5558672341" },
    recordId: "acct-7720",
  },
  billing: {
    intent: "billing",
    entities: { accountNumber: "8153", callbackNumber: "5552029814" },
    recordId: "acct-8153",
  },
  cancellation: { intent: "cancellation", entities: { orderNumber: "6609", callbackNumber: "5553441212" } },
  "no-message": { intent: "no-message", entities: {} },
};

async function readStored(store: string, key: string): Promise<Buffer> {
  return readFile(join(store, key));
}

describe("voxtrail run on the bundled fixtures", () => {
  let results: JobResult[];
  let store: string;
  let code: number;

  beforeAll(async () => {
    store = join(workDir(), "fixtures-store");
    const run = await runCli(["run", "--store", store, "--json"]);
    code = run.code;
    results = JSON.parse(run.stdout);
    // The ten bundled voicemails through the CLI: 2 min beside two busy loops on 2 cores.
  }, 900_000);

  it("processes every bundled voicemail, 16 kHz and telephony copies alike, and exits 0", async () => {
    const wavs = (await readdir(BUNDLED_VOICEMAILS_DIR, { recursive: true })).filter((f) =>
      f.endsWith(".wav"),
    );
    expect(results).toHaveLength(wavs.length);
    // Named by their path from the directory's parent: `voicemail/billing.wav`, ...
    expect(results.map((r) => r.file.name).sort()).toEqual(wavs.map((f) => `voicemail/${f}`).sort());
    expect(results.filter((r) => r.status !== "SUCCEEDED")).toEqual([]);
    expect(code).toBe(0);
  });

  it("writes transcript, record, reply text and reply audio whose hashes match the report", async () => {
    for (const result of results) {
      const report = JobReport.parse(result.report);
      expect(report.outcome).toBe("succeeded");
      const kinds = report.artifacts.map((a) => a.kind);
      expect(kinds).toEqual([
        "source-audio",
        "normalized-audio",
        "transcript",
        "record",
        "reply-text",
        "reply-audio",
      ]);
      for (const artifact of report.artifacts) {
        const bytes = await readStored(store, artifact.key);
        expect(createHash("sha256").update(bytes).digest("hex")).toBe(artifact.sha256);
        expect(bytes.length).toBe(artifact.bytes);
      }
      const byKind = Object.fromEntries(report.artifacts.map((a) => [a.kind, a]));
      const transcript = Transcript.parse(
        JSON.parse((await readStored(store, byKind.transcript!.key)).toString()),
      );
      expect(transcript.words.length).toBeGreaterThan(0);
      expect(transcript.processor.boundary).toEqual({ kind: "local" });
      const record = VoicemailRecord.parse(
        JSON.parse((await readStored(store, byKind.record!.key)).toString()),
      );
      expect((await readStored(store, byKind["reply-text"]!.key)).toString().trim()).toBe(record.replyText);
      const reply = parseWav(await readStored(store, byKind["reply-audio"]!.key));
      expect(reply).toMatchObject({ encoding: "pcm_s16le", sampleRate: 16000, channels: 1 });
      expect(reply.durationMs).toBeGreaterThan(500);
    }
  });

  it("hears each caller: intent, key entities and record at 16 kHz, the intent on the telephone", async () => {
    const recordOf = async (name: string) => {
      const report = JobReport.parse(results.find((r) => r.file.name === name)?.report);
      const key = report.artifacts.find((a) => a.kind === "record")!.key;
      return VoicemailRecord.parse(JSON.parse((await readStored(store, key)).toString()));
    };
    for (const [caller, expected] of Object.entries(CALLERS)) {
      const record = await recordOf(`voicemail/${caller}.wav`);
      expect({ caller, intent: record.intent }).toEqual({ caller, intent: expected.intent });
      expect(record.entities).toMatchObject(expected.entities);
      if (expected.recordId) {
        expect(record.match).toMatchObject({ outcome: "found", record: { id: expected.recordId } });
      } else {
        expect(record.match.outcome).toBe("not-found");
        expect(record.replyText).not.toMatch(/Hi [A-Z]/);
      }
      const telephony = await recordOf(`voicemail/telephony/${caller}.wav`);
      expect({ caller, intent: telephony.intent }).toEqual({ caller, intent: expected.intent });
    }
  });

  it("holds every fact heard below the review threshold, and states no held fact's value in the reply", async () => {
    for (const result of results) {
      const report = JobReport.parse(result.report);
      const key = report.artifacts.find((a) => a.kind === "record")!.key;
      const record = VoicemailRecord.parse(JSON.parse((await readStored(store, key)).toString()));
      const unsure = Object.entries(record.confidence ?? {})
        .filter(([, confidence]) => confidence < REVIEW_THRESHOLD)
        .map(([fact]) => fact);
      const held = (record.review ?? []).map((review) => review.fact);
      expect({ file: result.file.name, held }).toEqual({
        file: result.file.name,
        held: expect.arrayContaining(unsure),
      });
      for (const review of record.review ?? []) {
        if (review.confidence >= REVIEW_THRESHOLD) expect(review.reason).toMatch(/^heard with \d+ digits/);
      }
      // A held fact turns the whole reply into the one that asks for a call back and states nothing.
      if (held.length > 0) {
        expect(record.reply?.template).toBe("unsure");
        expect(record.replyText).not.toMatch(/\d/);
      }
      for (const fact of held) {
        const value = record.entities[fact as keyof Entities];
        if (value) expect(record.replyText).not.toContain(value);
      }
    }
  });

  it("records per-stage timings between named events", () => {
    for (const { report } of results) {
      const stages = report!.stages.map((s) => s.stage);
      expect(stages).toEqual(["Ingest", "Transcribe", "Reason", "Synthesize"]);
      const synth = report!.stages.find((s) => s.stage === "Synthesize")!.timings;
      const ttfb = synth.find((t) => t.name === "synthesize.ttfb")!;
      const total = synth.find((t) => t.name === "synthesize.total")!;
      expect(ttfb).toMatchObject({ startEvent: "request.sent", endEvent: "audio.firstChunk" });
      expect(ttfb.ms).toBeLessThanOrEqual(total.ms);
      expect(report!.timings.find((t) => t.name === "job.endToEnd")!.ms).toBeGreaterThan(0);
    }
  });

  it("writes one activity record per stage and keeps the outcome event, pointers only", async () => {
    for (const { jobId } of results) {
      const lineage = (await readdir(join(store, "lineage", jobId))).sort();
      expect(lineage).toEqual([
        "finalize-01.json",
        "ingest-01.json",
        "reason-01.json",
        "synthesize-01.json",
        "transcribe-01.json",
      ]);
      const synth = ActivityRecord.parse(
        JSON.parse(await readFile(join(store, "lineage", jobId, "synthesize-01.json"), "utf8")),
      );
      expect(synth.processors[0]?.model).toMatch(/flite/);
      expect(synth.processors[0]?.boundary).toEqual({ kind: "local" });
      const [eventFile] = await readdir(join(store, "events", jobId));
      const event = JSON.parse(await readFile(join(store, "events", jobId, eventFile!), "utf8"));
      expect(event).toMatchObject({
        source: "voxtrail",
        "detail-type": "Voicemail Job Succeeded",
        detail: { jobId },
      });
      expect(Object.keys(event.detail).sort()).toEqual(["jobId", "outcome", "report"]);
    }
  });

  describe("then voxtrail lineage over it", () => {
    const lineage = (...args: string[]) => runCli(["lineage", ...args, "--store", store]);

    it("traces reply audio back through every stage to the caller's audio", async () => {
      const { jobId, key } = results.find((r) => r.file.name === "voicemail/billing.wav")!;
      const traced = await lineage("trace", `artifacts/${jobId}/reply.wav`, "--json");
      expect(traced.code).toBe(0);
      const stages: string[] = [];
      for (let node = JSON.parse(traced.stdout); node; node = node.inputs[0]) {
        stages.push(node.producedBy?.stage ?? node.origin);
        if (!node.inputs[0]) expect(node.artifact).toMatchObject({ key, kind: "source-audio" });
      }
      expect(stages).toEqual(["Synthesize", "Reason", "Transcribe", "Ingest", "source"]);
      const text = await lineage("trace", `artifacts/${jobId}/reply.wav`);
      expect(text.stdout).toMatch(/processor pocketsphinx /);
    });

    it("lists what the source reached, counts boundaries, and verifies clean", async () => {
      const { jobId, key } = results.find((r) => r.file.name === "voicemail/billing.wav")!;
      const impact = JSON.parse((await lineage("impact", key, "--json")).stdout);
      expect(impact.jobs).toEqual([jobId]);
      expect(impact.artifacts.map((a: { kind: string }) => a.kind).sort()).toEqual(
        ["normalized-audio", "record", "reply-audio", "reply-text", "report", "transcript"].sort(),
      );
      const rows = JSON.parse((await lineage("boundaries", "--json")).stdout) as Array<{
        kind: string;
        entered: number;
      }>;
      expect(rows.find((row) => row.kind === "transcript")?.entered).toBeGreaterThanOrEqual(2);
      const verified = await lineage("verify");
      expect(verified.stdout).toMatch(new RegExp(`^OK: ${results.length} job\\(s\\)`));
      expect(verified.code).toBe(0);
    });

    it("fails verify naming any artifact altered by one byte", async () => {
      const { jobId } = results.find((r) => r.file.name === "voicemail/reschedule.wav")!;
      for (const file of ["normalized.wav", "transcript.json", "record.json", "reply.txt", "reply.wav"]) {
        const path = join(store, "artifacts", jobId, file);
        const original = await readFile(path);
        const altered = Buffer.from(original);
        altered[altered.length >> 1] = (altered[altered.length >> 1] ?? 0) ^ 0x80;
        await writeFile(path, altered);
        const failed = await lineage("verify", "--json");
        await writeFile(path, original);
        expect(failed.code, file).toBe(1);
        expect(JSON.parse(failed.stdout).issues, file).toEqual([
          expect.objectContaining({ problem: "hash-mismatch", key: `artifacts/${jobId}/${file}` }),
        ]);
      }
    });

    it("exports OpenLineage events that validate against the schema", async () => {
      const validate = await openLineageValidator();
      const exported = await lineage("export", "--format", "openlineage");
      const events = exported.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      // A START and a COMPLETE for each of a job's five stage runs.
      expect(events.length).toBe(results.length * 2 * 5);
      for (const event of events) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    });

    it("erases a source and everything derived, after which verify reports the chain as erased", async () => {
      const { jobId, key } = results.find((r) => r.file.name === "voicemail/billing.wav")!;
      const erased = await lineage("erase", key, "--json");
      expect(JSON.parse(erased.stdout).erased).toHaveLength(7);
      const verified = await lineage("verify", "--json");
      expect(verified.code).toBe(0);
      expect(JSON.parse(verified.stdout).erased).toEqual([expect.objectContaining({ jobId })]);
    });
  });
});

describe("voxtrail run on files it has never seen", () => {
  it("handles new 8 kHz mu-law telephony audio, and reports a non-audio file as InvalidAudio without stopping the rest", async () => {
    const inputs = join(workDir(), "unseen");
    const store = join(workDir(), "unseen-store");
    await mkdir(inputs, { recursive: true });
    const speech = decodeMono16(
      await new FliteEngine().synthesizeWav(
        "Hello, this is Sam calling about order number one nine eight four. It has not arrived yet. Please call me back.",
        "awb",
      ),
    );
    const telephony = encodeMuLaw(resample(speech.samples, speech.sampleRate, 8000));
    await writeFile(
      join(inputs, "caller.wav"),
      writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, telephony),
    );
    await writeFile(join(inputs, "notes.txt"), "this is not audio\n");

    // Transcription simulated: the fixtures' run above has the real engine on telephony copies.
    const run = await runCli(
      ["run", join(inputs, "caller.wav"), join(inputs, "notes.txt"), "--store", store, "--json"],
      SIMULATED_TRANSCRIBER_ENV,
    );
    expect(run.code).toBe(1);
    const results: JobResult[] = JSON.parse(run.stdout);
    const caller = results.find((r) => r.file.name === "caller.wav")!;
    const notes = results.find((r) => r.file.name === "notes.txt")!;
    expect(caller.status).toBe("SUCCEEDED");
    expect(notes).toMatchObject({ status: "FAILED", error: { error: "IngestFailed" } });
    expect(notes.error?.cause).toMatch(/^InvalidAudio: not a WAV file/);
    expect(notes.report).toMatchObject({
      outcome: "failed",
      failure: { stage: "Ingest", error: { name: "InvalidAudio" } },
    });
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace for the user
  }, 120_000);
});
