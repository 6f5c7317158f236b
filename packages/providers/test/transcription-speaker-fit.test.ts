import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { normalizeForTranscription } from "@voxtrail/audio";
import { describe, expect, test } from "vitest";
import { parseBatchCepstralMean } from "../src/transcription/pocketsphinx-output";
import {
  alignmentArgs,
  alignmentGrammar,
  MIN_FIT_GAIN,
  parseAcousticScore,
  pickSpeakerFit,
  type SpeakerAlignment,
} from "../src/transcription/speaker-fit";

const HAVE_BATCH = spawnSync("pocketsphinx_batch", ["-h"]).error === undefined;
const VOICEMAILS = fileURLToPath(new URL("../../../fixtures/voicemail/", import.meta.url));

describe("alignmentGrammar", () => {
  test("allows exactly the words heard, in order; nothing to align without words", () => {
    const words = ["call", "me", "i'm"].map((word, i) => ({ word, startMs: i * 100, endMs: i * 100 + 90 }));
    expect(alignmentGrammar(words)).toBe(
      "#JSGF V1.0;\ngrammar alignment;\npublic <utterance> = call me i'm;\n",
    );
    expect(alignmentGrammar([])).toBeUndefined();
  });
});

describe("parseAcousticScore and parseBatchCepstralMean", () => {
  test("sum the last backtrace's acoustic scores and read the last whole-utterance mean", () => {
    const log = [
      "INFO: cmn.c(133): CMN: 48.08 30.12 -36.75 ",
      "word                 start end   pprob ascr       lscr       lback",
      "<sil>                0     56    1.000 -231       -337       1  ",
      "nine                 57    90    1.000 -632       0          1  ",
      "INFO: fsg_search.c(868): fsg 0.08 CPU 0.009 xRT",
      "INFO: cmn.c(133): CMN: 47.90 -30.52 1.00 ",
      "word                 start end   pprob ascr       lscr       lback",
      "five                 0     40    1.000 -500       0          1  ",
      "",
    ].join("\n");
    expect(parseAcousticScore(log)).toBe(-500);
    expect(parseBatchCepstralMean(log)).toBe("47.90,-30.52,1.00");
    expect(parseAcousticScore("INFO: no result")).toBeUndefined();
    expect(parseAcousticScore("word start end pprob ascr lscr lback\nINFO: done\n")).toBeUndefined();
    expect(parseBatchCepstralMean("INFO: nothing")).toBeUndefined();
  });
});

describe("pickSpeakerFit", () => {
  const at = (factor: number, score: number, adaptation: string | null = "telephony"): SpeakerAlignment => ({
    adaptation,
    factor,
    score,
    cepstralMean: `${factor}`,
  });

  test("the best warp when it beats the decode's own unwarped alignment by the minimum gain", () => {
    expect(
      pickSpeakerFit([at(1, -12711), at(1.1, -12400), at(1.2, -12075), at(1.3, -12300)], "telephony"),
    ).toEqual(at(1.2, -12075));
  });

  test("another adaptation, warped or not, when it aligns best", () => {
    const fits = [at(1, -1000), at(1.2, -990), at(1, -900, "female"), at(1.1, -950, "female")];
    expect(pickSpeakerFit(fits, "telephony")).toEqual(at(1, -900, "female"));
    // Measured against the decode's own adaptation: here the female one, which nothing beats.
    expect(pickSpeakerFit(fits, "female")).toBeUndefined();
    expect(pickSpeakerFit([at(1, -1000, null), at(1.2, -900, null)], null)).toEqual(at(1.2, -900, null));
  });

  test("nothing when the decode's own settings align best, the gain is too small, or there is nothing to compare with", () => {
    expect(pickSpeakerFit([at(1, -1000), at(1.1, -1100)], "telephony")).toBeUndefined();
    const justUnder = -1000 * (1 - MIN_FIT_GAIN) - 1;
    expect(pickSpeakerFit([at(1, -1000), at(1.2, justUnder)], "telephony")).toBeUndefined();
    expect(pickSpeakerFit([at(1, -1000), at(1.2, -1000 * (1 - MIN_FIT_GAIN))], "telephony")).toEqual(
      at(1.2, -1000 * (1 - MIN_FIT_GAIN)),
    );
    expect(pickSpeakerFit([at(1.1, -900), at(1.2, -800)], "telephony")).toBeUndefined();
    expect(pickSpeakerFit([at(1, -1000, "female"), at(1.2, -800)], "telephony")).toBeUndefined();
    expect(pickSpeakerFit([], "telephony")).toBeUndefined();
  });
});

describe.skipIf(!HAVE_BATCH)("pocketsphinx_batch's own log", () => {
  test("holds an acoustic score and a mean the parsers read, and a warp changes both", async () => {
    const dir = await mkdtemp(join(tmpdir(), "voxtrail-speaker-fit-"));
    try {
      const { wav } = normalizeForTranscription(await readFile(join(VOICEMAILS, "damaged-order.wav")));
      await writeFile(join(dir, "input.wav"), wav);
      await writeFile(join(dir, "input.ctl"), "input\n");
      const scripts = JSON.parse(await readFile(join(VOICEMAILS, "scripts.json"), "utf8")) as Record<
        string,
        string
      >;
      const words = (scripts["damaged-order"] ?? "")
        .toLowerCase()
        .replace(/[^a-z' ]/g, " ")
        .split(/\s+/);
      const grammar = alignmentGrammar(words.filter(Boolean).map((word) => ({ word, startMs: 0, endMs: 0 })));
      await writeFile(join(dir, "alignment.gram"), grammar ?? "");
      const align = (factor: string) => {
        const log = join(dir, `${factor}.log`);
        const files = { dir, ctl: join(dir, "input.ctl"), grammar: join(dir, "alignment.gram"), log };
        const run = spawnSync("pocketsphinx_batch", alignmentArgs(files, Number(factor)));
        expect(run.status).toBe(0);
        return readFile(log, "utf8");
      };
      const [unwarped, warped] = [await align("1"), await align("1.2")];
      const [a, b] = [parseAcousticScore(unwarped), parseAcousticScore(warped)];
      expect(a).toBeLessThan(0);
      expect(b).toBeLessThan(0);
      expect(a).not.toBe(b);
      expect(parseBatchCepstralMean(unwarped)?.split(",")).toHaveLength(13);
      expect(parseBatchCepstralMean(unwarped)).not.toBe(parseBatchCepstralMean(warped));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
