import type { TranscriptWord } from "@voxtrail/core";

/** A word line of `pocketsphinx_continuous -time yes`: `word start end confidence`, times in seconds. */
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\S+)$/;
/** Markers that are not words: `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++`, a grammar's `(NULL)` and the like. */
const NOT_A_WORD = /^[<[+(]/;
/** The alternate-pronunciation suffix the dictionary adds: `i'm(2)`, `and(2)`. */
const ALTERNATE = /\(\d+\)$/;

/**
 * The recognised words in `pocketsphinx_continuous -time yes` output, in order. Hypothesis lines
 * (the plain text pocketsphinx prints before each utterance's word lines) are skipped, as are
 * silence, sentence and noise markers; alternate-pronunciation suffixes are removed. Confidence
 * (a posterior probability that pocketsphinx sometimes prints a little above 1) is clamped to
 * [0, 1].
 *
 * @example
 * parsePocketsphinxWords("call me\n<s> 0.000 0.150 0.998\ncall 0.160 0.490 0.9\nme(2) 0.5 0.6 1.0001\n");
 * // [{ word: "call", startMs: 160, endMs: 490, confidence: 0.9 }, { word: "me", startMs: 500, endMs: 600, confidence: 1 }]
 */
export function parsePocketsphinxWords(stdout: string): TranscriptWord[] {
  const words: TranscriptWord[] = [];
  for (const line of stdout.split(/\r?\n/)) {
    const match = WORD_LINE.exec(line.trim());
    if (!match) continue;
    const [, token = "", start = "", end = "", confidence = ""] = match;
    if (NOT_A_WORD.test(token)) continue;
    const word: TranscriptWord = {
      word: token.replace(ALTERNATE, ""),
      startMs: seconds(start),
      endMs: seconds(end),
    };
    const probability = Number(confidence);
    if (Number.isFinite(probability)) word.confidence = Math.min(1, Math.max(0, probability));
    words.push(word);
  }
  return words;
}

/** What a first decoding pass's log says about the acoustic front end. */
export interface FrontEndEstimate {
  /** The acoustic model's `feat.params` file. */
  featParamsPath: string;
  /** The last cepstral mean pocketsphinx estimated from the audio, comma-separated. */
  cepstralMean: string;
}

/**
 * Reads, from a pocketsphinx log, the model's `feat.params` path and the last live cepstral-mean
 * update (`cmn_live.c ... Update to < 47.90 31.57 ... >`); `undefined` if either is missing (for
 * instance when the audio was too short for an update).
 */
export function parseFrontEndEstimate(log: string): FrontEndEstimate | undefined {
  const featParamsPath = /Parsed model-specific feature parameters from (\S+)/.exec(log)?.[1];
  const updates = [...log.matchAll(/Update to\s*<([^>]*)>/g)];
  const values = updates.at(-1)?.[1]?.trim().split(/\s+/);
  if (!featParamsPath || !values || values.some((value) => !Number.isFinite(Number(value)))) {
    return undefined;
  }
  return { featParamsPath, cepstralMean: values.join(",") };
}

/**
 * The cepstral mean `pocketsphinx_batch` computed over a whole utterance (`cmn.c ... CMN: 48.08
 * 30.12 ...`), comma-separated, the last in the log; `undefined` if there is none.
 */
export function parseBatchCepstralMean(log: string): string | undefined {
  const values = [...log.matchAll(/CMN:((?:\s+-?\d+(?:\.\d+)?)+)/g)].at(-1)?.[1]?.trim().split(/\s+/);
  return values && values.length > 0 ? values.join(",") : undefined;
}

/** A copy of a `feat.params` file's text whose `-cmninit` is `cepstralMean`. */
export function withCepstralMean(featParams: string, cepstralMean: string): string {
  const lines = featParams.split(/\r?\n/).filter((line) => line.trim() !== "" && !/^-cmninit\s/.test(line));
  return `${[...lines, `-cmninit ${cepstralMean}`].join("\n")}\n`;
}

function seconds(text: string): number {
  return Math.round(Number(text) * 1000);
}
