import { createHash } from "node:crypto";
import { encodeSamples } from "@voxtrail/audio";
import { type ArtifactRef, LOCAL_BOUNDARY, type PromptRow, type Synthesizer } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import { synthesizePromptStage } from "../../src/handlers/synthesize-prompt";
import { stageHandler } from "../../src/kernel/stage-handler";
import { stdoutOf, testMetrics } from "../emf-output";
import { context, testDependencies } from "../stage-dependencies";

/**
 * Past what Powertools Metrics holds before it flushes on its own (100 metrics) and past the
 * dimensions it takes (29): a handler that never flushed, or named a dimension after
 * each prompt, shows here.
 */
const ROWS = 150;

/**
 * 400 ms of a 440 Hz tone at half scale, 8 kHz mu-law: audio SynthesizePrompt takes for speech of
 * a few words (silence, or too short, fails the prompt with PromptAudioImplausible).
 */
const TONE = encodeSamples(
  Int16Array.from({ length: 3200 }, (_, i) => Math.round(16384 * Math.sin((2 * Math.PI * 440 * i) / 8000))),
  "pcm_mulaw",
);

/** A synthesizer that answers every prompt at once with {@link TONE}. */
const instantSynthesizer: Synthesizer = {
  processor: { provider: "instant", model: "tone", version: "1", boundary: LOCAL_BOUNDARY },
  synthesize: () => ({
    async *[Symbol.asyncIterator]() {
      yield TONE;
    },
    timings: () => [
      { name: "synthesize.ttfb", startEvent: "request.sent", endEvent: "audio.firstChunk", ms: 1 },
    ],
  }),
};

function row(line: number): PromptRow {
  const text = `Prompt number ${line}.`;
  return {
    line,
    id: `p${line}`,
    text,
    format: "telephony",
    rowHash: createHash("sha256").update(text).digest("hex"),
  };
}

describe("prompt metrics through one warm SynthesizePrompt handler", () => {
  it("flushes every invocation's metrics, under one value of the stage dimension", async () => {
    const metrics = testMetrics();
    const { deps } = await testDependencies({ metrics, synthesizer: instantSynthesizer });
    const rows: ArtifactRef = {
      kind: "prompt-manifest",
      uri: deps.store.uri("prompts/pr-metrics/rows.jsonl"),
      key: "prompts/pr-metrics/rows.jsonl",
      sha256: "0".repeat(64),
      bytes: 0,
      contentType: "application/x-ndjson",
    };
    const handler = stageHandler(synthesizePromptStage, deps);

    const lines = await stdoutOf(async () => {
      for (let line = 2; line < ROWS + 2; line++) {
        await handler({ jobId: "pr-metrics", rows, row: row(line) }, context);
      }
    });
    const emf = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => "_aws" in entry);

    expect(emf).toHaveLength(ROWS);
    expect(new Set(emf.map((entry) => entry.stage))).toEqual(new Set(["SynthesizePrompt"]));
    expect(emf.filter((entry) => typeof entry["synthesize.duration"] === "number")).toHaveLength(ROWS);
    expect(metrics.hasStoredMetrics()).toBe(false);
    // Lineage keeps one name per prompt: every record is a first attempt.
    expect(await deps.store.list("lineage/pr-metrics/")).toHaveLength(ROWS);
  }, 300_000);
});
