/**
 * The fact-accuracy bench's clip results, pooled into groups: word error rate summed over the
 * group's words, facts counted right over total.
 */
import type { TranscriptWord } from "@voxtrail/core";
import type { NoiseLevel } from "./accuracy-audio";
import type { Split } from "./accuracy-corpus";
import { type SpeakerSet, speakerSetOf } from "./accuracy-speakers";
import { type FactKind, type FactScore, type FactTally, isRecordFact, tallyFacts } from "./fact-scoring";
import type { Delivery } from "./transcription-wer";

/** One clip: its transcript's errors and the facts the reasoner got from it. */
export interface ClipResult {
  script: string;
  split: Split;
  /** The speaker's id (accuracy-speakers.ts). */
  voice: string;
  delivery: Delivery;
  noise: NoiseLevel;
  transcript: string;
  /** The transcript's words with their times and confidences, for choosing a review threshold. */
  words?: TranscriptWord[];
  referenceWords: number;
  errors: number;
  wer: number;
  facts: FactScore[];
  /** Transcription time / audio duration. */
  realTimeFactor: number;
}

/** The figures of a group of clips; `all` pools that dimension. */
export interface FactAccuracySummary {
  split: Split | "all";
  /** Tuned speakers, held-out speakers, or both. */
  speakers: SpeakerSet | "all";
  voice: string;
  delivery: Delivery | "all";
  noise: NoiseLevel | "all";
  clips: number;
  /** Errors over reference words, summed over the clips. */
  wer: number;
  /** Intent, numbers and day: the fact accuracy. */
  facts: FactTally;
  /** The business record matched (or rightly none). */
  records: FactTally;
  /** Each kind of fact on its own (intent, orderNumber, ..., day, record). */
  byFact: Partial<Record<FactKind, FactTally>>;
}

/**
 * Every group of clips by split, speaker set, voice, delivery and noise, each dimension also pooled
 * (`all`); groups with no clips are left out, and so are one voice's groups with the speaker sets
 * pooled (they repeat that voice's own set's).
 */
export function summarizeClips(clips: readonly ClipResult[]): FactAccuracySummary[] {
  const values = <T>(of: (clip: ClipResult) => T): (T | "all")[] => [
    ...new Set(clips.map(of)),
    "all" as const,
  ];
  const summaries: FactAccuracySummary[] = [];
  for (const split of values((clip) => clip.split)) {
    for (const speakers of values((clip) => speakerSetOf(clip.voice))) {
      for (const voice of values((clip) => clip.voice)) {
        if (voice !== "all" && speakers === "all") continue;
        for (const delivery of values((clip) => clip.delivery)) {
          for (const noise of values((clip) => clip.noise)) {
            const group = clips.filter(
              (clip) =>
                (split === "all" || clip.split === split) &&
                (speakers === "all" || speakerSetOf(clip.voice) === speakers) &&
                (voice === "all" || clip.voice === voice) &&
                (delivery === "all" || clip.delivery === delivery) &&
                (noise === "all" || clip.noise === noise),
            );
            if (group.length > 0)
              summaries.push({ split, speakers, voice, delivery, noise, ...figures(group) });
          }
        }
      }
    }
  }
  return summaries;
}

function figures(group: readonly ClipResult[]) {
  const scores = group.flatMap((clip) => clip.facts);
  const byFact: Partial<Record<FactKind, FactTally>> = {};
  for (const kind of new Set(scores.map((score) => score.fact))) {
    byFact[kind] = tallyFacts(scores, (fact) => fact === kind);
  }
  const words = group.reduce((sum, clip) => sum + clip.referenceWords, 0);
  return {
    clips: group.length,
    wer: group.reduce((sum, clip) => sum + clip.errors, 0) / words,
    facts: tallyFacts(scores),
    records: tallyFacts(scores, isRecordFact),
    byFact,
  };
}
