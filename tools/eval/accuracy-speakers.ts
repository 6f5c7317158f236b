/**
 * The speakers of the accuracy corpus. The four flite voices are the **tuned** speakers: the
 * telephony and voice adaptations, the language model, the warp factors, the review threshold and
 * the reasoner's rules were all chosen on them. Every other speaker is **held out**: no tuning step
 * reads its audio, and two whole synthesizers (espeak-ng and festival's ked diphone voice) are among
 * them, so the figures show what the pipeline does with voices it was never fitted to. Festival's
 * slt and kal would be flite's slt and kal16 again, so they are not here.
 */
import type { EspeakVoice, FliteVoice } from "@voxtrail/local";

/** Whether tuning saw a speaker (`tuned`) or never did (`held-out`). */
export const SPEAKER_SETS = ["tuned", "held-out"] as const;
export type SpeakerSet = (typeof SPEAKER_SETS)[number];

/** One speaker: a synthesizer and its voice settings, under a stable id. */
export type Speaker =
  | { id: FliteVoice; synthesizer: "flite"; set: "tuned"; voice: FliteVoice; describe: string }
  | { id: string; synthesizer: "espeak-ng"; set: "held-out"; voice: EspeakVoice; describe: string }
  | { id: string; synthesizer: "festival"; set: "held-out"; voice: string; describe: string };

/** A tuned flite voice, under its own name. */
const flite = (voice: FliteVoice, describe: string): Speaker => ({
  id: voice,
  synthesizer: "flite",
  set: "tuned",
  voice,
  describe,
});

/** A held-out espeak-ng voice. */
const espeak = (id: string, voice: EspeakVoice, describe: string): Speaker => ({
  id,
  synthesizer: "espeak-ng",
  set: "held-out",
  voice,
  describe,
});

/** Every speaker, tuned first; ids are what the bench's `--voices` and its tables name. */
export const SPEAKERS: readonly Speaker[] = [
  flite("kal16", "flite kal, US male"),
  flite("awb", "flite awb, Scottish male"),
  flite("rms", "flite rms, US male"),
  flite("slt", "flite slt, US female"),
  espeak("espeak-us", { voice: "en-us" }, "espeak-ng en-us, US male"),
  espeak("espeak-us-f3", { voice: "en-us+f3" }, "espeak-ng en-us with female variant f3"),
  espeak("espeak-rp-m3", { voice: "en-gb-x-rp+m3" }, "espeak-ng British RP with male variant m3"),
  espeak(
    "espeak-scot-f4",
    { voice: "en-gb-scotland+f4" },
    "espeak-ng Scottish English with female variant f4",
  ),
  espeak("espeak-029-m2", { voice: "en-029+m2" }, "espeak-ng Caribbean English with male variant m2"),
  espeak(
    "espeak-us-slow-low",
    { voice: "en-us+m3", rate: 140, pitch: 30 },
    "espeak-ng en-us m3, slower (140 wpm) and lower (pitch 30)",
  ),
  {
    id: "ked",
    synthesizer: "festival",
    set: "held-out",
    voice: "ked_diphone",
    describe: "festival ked diphone, US male",
  },
];

/** The tuned speakers' ids: the flite voices every tuning tool reads. */
export const TUNED_VOICES: readonly FliteVoice[] = SPEAKERS.flatMap((speaker) =>
  speaker.synthesizer === "flite" ? [speaker.voice] : [],
);

/** The speaker with this id; throws naming the known ids when there is none. */
export function speakerNamed(id: string): Speaker {
  const speaker = SPEAKERS.find((candidate) => candidate.id === id);
  if (!speaker) throw new Error(`unknown speaker ${id}; choose from ${SPEAKERS.map((s) => s.id).join(", ")}`);
  return speaker;
}

/**
 * The speakers a list names: ids, or `tuned` / `held-out` for every speaker of that set.
 *
 * @example
 * speakersNamed("held-out,slt"); // the seven held-out speakers and slt
 */
export function speakersNamed(list: string): Speaker[] {
  const picked = list
    .split(",")
    .flatMap((name) =>
      SPEAKER_SETS.includes(name as SpeakerSet)
        ? SPEAKERS.filter((speaker) => speaker.set === name)
        : [speakerNamed(name)],
    );
  return [...new Set(picked)];
}

/** Which set the speaker with this id is in (`tuned` for the flite voices results were kept under before). */
export function speakerSetOf(id: string): SpeakerSet {
  return speakerNamed(id).set;
}
