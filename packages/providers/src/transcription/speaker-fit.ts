import type { TranscriptWord } from "@voxtrail/core";

/**
 * The frequency-warp factors tried for each call (`-warp_params`, pocketsphinx's default
 * `inverse_linear` warp): 1 leaves the spectrum as it is; above 1 maps it down, towards the longer
 * vocal tracts the model mostly heard. None is below 1: on the tuning half, warping the three male
 * voices by 0.9 aligned them a little better but gave 88 facts of 96 against 91 unwarped.
 */
export const WARP_FACTORS: readonly number[] = [1, 1.1, 1.2, 1.3];

/**
 * How much better than the decode's own settings (its adaptation, unwarped) another alignment
 * must score, as a share of that score's size, to be worth decoding again: on the light-noise
 * telephony copies of six tuning scripts, the voices the model fits gained under 1.1% from a warp,
 * the one it fits worst (slt) 2 to 8%.
 */
export const MIN_FIT_GAIN = 0.015;

/** How well the words heard align to the audio under one adaptation and warp factor. */
export interface SpeakerAlignment {
  /** The adapted means aligned with (a file), `null` for the model's own. */
  adaptation: string | null;
  factor: number;
  /** The alignment's total acoustic score ({@link parseAcousticScore}). */
  score: number;
  /** The cepstral mean of the audio under this warp, comma-separated. */
  cepstralMean: string;
}

/**
 * The settings to decode again with: the best-scoring alignment, if it is not the one under the
 * decode's own settings (`adaptation`, unwarped) and beats that by at least {@link MIN_FIT_GAIN};
 * `undefined` (keep the decode) otherwise, and when there is no such alignment to compare with.
 *
 * @example
 * pickSpeakerFit([
 *   { adaptation: "telephony.means", factor: 1, score: -12711, cepstralMean: "..." },
 *   { adaptation: "telephony.means", factor: 1.2, score: -12075, cepstralMean: "..." },
 * ], "telephony.means");
 * // the second: 5% better
 */
export function pickSpeakerFit(
  alignments: readonly SpeakerAlignment[],
  adaptation: string | null,
): SpeakerAlignment | undefined {
  const own = alignments.find((alignment) => alignment.adaptation === adaptation && alignment.factor === 1);
  if (!own) return undefined;
  const best = alignments.reduce((a, b) => (b.score > a.score ? b : a), own);
  const gain = best.score - own.score;
  return best !== own && gain >= MIN_FIT_GAIN * Math.abs(own.score) ? best : undefined;
}

/**
 * A JSGF grammar that allows exactly `words`, in order: decoding with it aligns them to the audio
 * (pocketsphinx adds optional silence and fillers between words itself). `undefined` when there
 * is no word to align.
 *
 * @example
 * alignmentGrammar([{ word: "call", startMs: 0, endMs: 300 }, { word: "me", startMs: 300, endMs: 500 }]);
 * // "#JSGF V1.0;\ngrammar alignment;\npublic <utterance> = call me;\n"
 */
export function alignmentGrammar(words: readonly TranscriptWord[]): string | undefined {
  if (words.length === 0) return undefined;
  return `#JSGF V1.0;\ngrammar alignment;\npublic <utterance> = ${words.map((w) => w.word).join(" ")};\n`;
}

/** The files one alignment reads and writes; see {@link alignmentArgs}. */
export interface AlignmentFiles {
  /** The folder holding `input.wav` (a 16 kHz WAV with a 44-byte header). */
  dir: string;
  /** A control file whose one line is `input`. */
  ctl: string;
  /** The grammar ({@link alignmentGrammar}). */
  grammar: string;
  /** Where pocketsphinx writes its log, backtrace included. */
  log: string;
}

/**
 * The `pocketsphinx_batch` arguments that align `input.wav`, as one utterance, to the grammar
 * under one warp factor; `channel` (noise removal, adapted means) goes in between.
 *
 * @example
 * spawn("pocketsphinx_batch", alignmentArgs({ dir, ctl, grammar, log }, 1.2));
 */
export function alignmentArgs(
  files: AlignmentFiles,
  factor: number,
  channel: readonly string[] = [],
): string[] {
  return [
    ...["-ctl", files.ctl, "-cepdir", files.dir, "-cepext", ".wav", "-adcin", "yes", "-adchdr", "44"],
    ...channel,
    ...["-jsgf", files.grammar, "-backtrace", "yes", "-warp_params", String(factor)],
    ...["-hyp", "/dev/null", "-logfn", files.log],
  ];
}

/** The header of the word table pocketsphinx logs with `-backtrace yes`. */
const BACKTRACE_HEADER = /^word\s+start\s+end\s+pprob\s+ascr\s+lscr\s+lback\s*$/m;
/** One row of that table: word, start frame, end frame, posterior, acoustic score, ... */
const BACKTRACE_ROW = /^\S+\s+\d+\s+\d+\s+\S+\s+(-?\d+)\s/;

/**
 * The total acoustic score (log-likelihood, in pocketsphinx's integer log units) of the last
 * utterance in a pocketsphinx log written with `-backtrace yes`: the sum of its words' `ascr`.
 * `undefined` when the log has no backtrace, as when a grammar's end could not be reached.
 *
 * @example
 * parseAcousticScore("word start end pprob ascr lscr lback\n<sil> 0 56 1.000 -231 -337 1\nnine 57 90 1.000 -632 0 1\n");
 * // -863
 */
export function parseAcousticScore(log: string): number | undefined {
  const tables = log.split(BACKTRACE_HEADER);
  if (tables.length < 2) return undefined;
  let total = 0;
  let rows = 0;
  for (const line of (tables.at(-1) ?? "").split(/\r?\n/).slice(1)) {
    const match = BACKTRACE_ROW.exec(line);
    if (!match) break;
    total += Number(match[1]);
    rows += 1;
  }
  return rows > 0 ? total : undefined;
}
