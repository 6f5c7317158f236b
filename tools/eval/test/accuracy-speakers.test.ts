import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { adaptToTelephony } from "../../models/telephony-adaptation";
import { VOICES } from "../accuracy-audio";
import { SPEAKERS, speakerSetOf, speakersNamed } from "../accuracy-speakers";
import { summarizeClips } from "../fact-accuracy-summary";
import { SpeakerSpeech } from "../speaker-speech";

describe("the corpus's speakers", () => {
  it("holds out whole synthesizers: every tuned speaker is a flite voice, and no flite voice is held out", () => {
    const synthesizers = [...new Set(SPEAKERS.map((s) => s.synthesizer))];
    const wholeHeldOut = synthesizers.filter((name) =>
      SPEAKERS.every((s) => s.synthesizer !== name || s.set === "held-out"),
    );
    expect(wholeHeldOut.sort()).toEqual(["espeak-ng", "festival"]);
    expect(SPEAKERS.filter((s) => s.set === "tuned").map((s) => s.id)).toEqual([...VOICES]);
    expect(new Set(SPEAKERS.map((s) => s.id)).size).toBe(SPEAKERS.length);
  });

  it("names speakers by id or by set, and refuses an unknown one naming the known ones", () => {
    expect(speakersNamed("held-out,slt").map((s) => s.id)).toEqual([
      ...SPEAKERS.filter((s) => s.set === "held-out").map((s) => s.id),
      "slt",
    ]);
    expect(speakersNamed("tuned").map((s) => s.id)).toEqual([...VOICES]);
    expect(() => speakersNamed("kal")).toThrow(/unknown speaker kal; choose from kal16, awb/);
    expect(speakerSetOf("ked")).toBe("held-out");
  });

  it("keeps held-out speakers out of the telephony adaptation, before any audio is made", async () => {
    const dir = await mkdtemp(join(tmpdir(), "voxtrail-held-out-"));
    try {
      await expect(
        adaptToTelephony({ out: join(dir, "x.means"), voices: ["slt", "espeak-us" as "slt"], log: () => {} }),
      ).rejects.toThrow(
        "espeak-us: not a tuned voice (kal16, awb, rms, slt); held-out speakers never reach a tuning step",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("pools tuned and held-out speakers apart", () => {
    const clip = (voice: string, right: boolean) => ({
      script: "h01",
      split: "held-out" as const,
      voice,
      delivery: "telephony" as const,
      noise: "heavy" as const,
      transcript: "",
      referenceWords: 10,
      errors: right ? 0 : 5,
      wer: right ? 0 : 0.5,
      facts: [{ fact: "intent" as const, expected: "other", got: right ? "other" : "cancel", right }],
      realTimeFactor: 1,
    });
    const summaries = summarizeClips([clip("slt", true), clip("espeak-us", false), clip("ked", false)]);
    const pooled = (speakers: string) =>
      summaries.find(
        (s) =>
          s.speakers === speakers && s.voice === "all" && s.delivery === "telephony" && s.noise === "heavy",
      )?.facts;
    expect(pooled("tuned")).toMatchObject({ right: 1, total: 1 });
    expect(pooled("held-out")).toMatchObject({ right: 0, total: 2, statedWrong: 2 });
    expect(pooled("all")).toMatchObject({ right: 1, total: 3 });
    expect(summaries.some((s) => s.voice === "slt" && s.speakers === "all")).toBe(false);
  });
});

describe("SpeakerSpeech", () => {
  it("speaks a script in each synthesizer at 16 kHz, each speaker differently", {
    timeout: 30_000,
  }, async () => {
    const speech = new SpeakerSpeech();
    const text = "Hi, this is Tom. My order number is five oh three four.";
    const spoken = new Map<string, Int16Array>();
    for (const id of ["slt", "espeak-us", "espeak-us-f3", "ked"]) {
      const [speaker] = speakersNamed(id);
      const samples = await speech.speak(speaker as (typeof SPEAKERS)[number], text);
      // Two to eight seconds of 16 kHz speech, not silence.
      expect(samples.length).toBeGreaterThan(2 * 16_000);
      expect(samples.length).toBeLessThan(8 * 16_000);
      expect(Math.max(...samples.subarray(0, 40_000).map(Math.abs))).toBeGreaterThan(1000);
      spoken.set(id, samples);
    }
    expect(spoken.get("espeak-us")?.length).not.toBe(spoken.get("espeak-us-f3")?.length);
    expect(await speech.version("espeak-ng")).toMatch(/^espeak-ng \d/);
    expect(await speech.version("festival")).toMatch(/^festival \d/);
  });
});
