import { readFileSync } from "node:fs";
import { Transcript, TranscriptionFailed } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import { transcriptOfTranscribeOutput } from "../src/transcription/transcribe-output";

/** AWS's documented example output (fixtures/README.md, "transcribe/"). */
const EXAMPLE = JSON.parse(
  readFileSync(new URL("../../../fixtures/transcribe/aws-example-output.json", import.meta.url), "utf8"),
) as { results: { items: Array<Record<string, unknown>> } } & Record<string, unknown>;

const context = {
  language: "en-US",
  audioMs: 3000,
  processor: {
    provider: "amazon-transcribe",
    model: "transcribe batch",
    version: "2017-10-26",
    boundary: { kind: "aws-account" as const, service: "transcribe", region: "us-east-1" },
  },
};

/** The example with its items changed by `edit`. */
function withItems(edit: (items: Array<Record<string, unknown>>) => Array<Record<string, unknown>>) {
  return { ...EXAMPLE, results: { ...EXAMPLE.results, items: edit(structuredClone(EXAMPLE.results.items)) } };
}

/** The error a document fails with, for asserting on its name and message. */
function failureOf(document: unknown): Error {
  try {
    transcriptOfTranscribeOutput(document, context);
  } catch (error) {
    return error as Error;
  }
  throw new Error("the document was accepted");
}

describe("transcriptOfTranscribeOutput", () => {
  it("reads AWS's documented example: the text, each word with its times and confidence, no punctuation words", () => {
    const transcript = transcriptOfTranscribeOutput(EXAMPLE, context);
    expect(Transcript.parse(transcript)).toEqual(transcript);
    expect(transcript.text).toBe("Welcome to Amazon Transcribe.");
    expect(transcript.words).toEqual([
      { word: "Welcome", startMs: 640, endMs: 1090, confidence: 1 },
      { word: "to", startMs: 1090, endMs: 1210, confidence: 1 },
      { word: "Amazon", startMs: 1210, endMs: 1740, confidence: 1 },
      { word: "Transcribe", startMs: 1740, endMs: 2560, confidence: 1 },
    ]);
    expect(transcript).toMatchObject({ language: "en-US", audioMs: 3000, processor: context.processor });
  });

  it("takes each word's best alternative, and ignores what it does not read (ids, speaker labels, segments)", () => {
    const labelled = withItems((items) =>
      items.map((item, id) => ({
        id,
        ...item,
        ...(item.type === "pronunciation" ? { speaker_label: "spk_0" } : {}),
        ...(id === 2
          ? {
              alternatives: [
                { confidence: "0.62", content: "Amazon" },
                { confidence: "0.31", content: "amazing" },
              ],
            }
          : {}),
      })),
    );
    const document = {
      ...labelled,
      results: {
        ...labelled.results,
        speaker_labels: { channel_label: "ch_0", speakers: 1, segments: [] },
        audio_segments: [{ id: 0, transcript: "Welcome to Amazon Transcribe.", items: [0, 1, 2, 3, 4] }],
      },
    };
    const transcript = transcriptOfTranscribeOutput(document, context);
    expect(transcript.words.map((w) => w.word)).toEqual(["Welcome", "to", "Amazon", "Transcribe"]);
    expect(transcript.words[2]).toEqual({ word: "Amazon", startMs: 1210, endMs: 1740, confidence: 0.62 });
  });

  it("refuses a document of another shape, naming where, never the words", () => {
    const untimed = withItems((items) => items.map((item) => ({ ...item, start_time: "soon" })));
    const error = failureOf(untimed);
    expect(error).toBeInstanceOf(TranscriptionFailed);
    expect(error.message).toMatch(/^Amazon Transcribe output is malformed at: results\.items\.0\.start_time/);
    expect(error.message).not.toMatch(/Welcome|Amazon Transcribe\./);
    expect(failureOf({ jobName: "j" }).message).toBe("Amazon Transcribe output is malformed at: results");
    const noTimes = withItems((items) => items.map(({ start_time: _, ...item }) => item));
    expect(failureOf(noTimes).message).toBe("Amazon Transcribe output item 0 is a word without times");
    const sure = withItems((items) => [
      { ...items[0], alternatives: [{ content: "Welcome", confidence: "1.5" }] },
    ]);
    expect(failureOf(sure)).toBeInstanceOf(TranscriptionFailed);
  });

  it("refuses the output of a job that did not complete", () => {
    const error = failureOf({ ...EXAMPLE, status: "FAILED" });
    expect(error).toBeInstanceOf(TranscriptionFailed);
    expect(error.message).toBe("Amazon Transcribe output has status FAILED, not COMPLETED");
  });
});
