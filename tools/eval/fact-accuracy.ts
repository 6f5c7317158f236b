/**
 * Fact accuracy: the embedded pipeline on voicemails it was not written against. Every script of
 * fixtures/accuracy/scripts.json, spoken by each speaker chosen (by default the four tuned flite
 * voices; accuracy-speakers.ts lists the held-out ones), with line noise at each level, and
 * delivered as 16 kHz PCM and as 8 kHz mu-law, goes through what a job does to it: normalised to
 * 16 kHz (`normalizeForTranscription`, the Ingest stage), transcribed by pocketsphinx (the
 * Transcribe stage), reasoned over by the local reasoner against fixtures/records (the Reason
 * stage). Each clip gets a word error rate against its script and each fact the script states
 * (intent, every number, the day) is scored right or wrong; figures are kept apart for the tuning
 * and the held-out half of the corpus. The reasoner is also run on each script's own text: the
 * facts it would get from a perfect transcript.
 *
 * The Transcribe stand-in (packages/local/src/transcribe-endpoint) is not measured apart: it
 * runs the same PocketsphinxTranscriber on the same normalised audio and hands its words back
 * unchanged, so its figures are these by construction.
 *
 * All 384 clips took 23 minutes on the shared 2-core machine, flite speaking the corpus the first
 * time included (two clips transcribed at once); pick fewer for a quick run:
 *
 *   npx tsx tools/eval/fact-accuracy.ts                       # all 384 clips of the tuned voices
 *   npx tsx tools/eval/fact-accuracy.ts --voices held-out --splits held-out --deliveries telephony   # held-out speakers: 168 clips
 *   npx tsx tools/eval/fact-accuracy.ts --voices held-out --splits held-out --deliveries telephony --noises heavy --scripts 6   # inner loop: 42 clips, 476 s on 2026-12-07 (machine shared)
 *   npx tsx tools/eval/fact-accuracy.ts --scripts 3 --voices slt,kal16 --deliveries telephony --noises heavy
 *   npx tsx tools/eval/fact-accuracy.ts --deliveries telephony --telephony-adaptation none   # or a FILE
 *   npx tsx tools/eval/fact-accuracy.ts --splits tuning --ids t07,t08 --language-model /tmp/v.lm.bin --json out.json
 *   npx tsx tools/eval/fact-accuracy.ts --deliveries telephony --warp-factors none   # or e.g. 1,1.2,1.4
 *   npx tsx tools/eval/fact-accuracy.ts --deliveries telephony --voice-adaptations none  # or FILE,FILE
 *   npx tsx tools/eval/fact-accuracy.ts --deliveries telephony --call-adaptation none  # no per-call MLLR
 *   npx tsx tools/eval/fact-accuracy.ts --deliveries telephony --reference-lengths none
 *
 * `--voices` takes speaker ids or `tuned` / `held-out` (every speaker of that set); the tables show
 * held-out speakers apart from tuned ones. `--scripts N` takes the first N scripts of each half; `--splits tuning` measures the tuning half
 * alone (tuning work has no reason to read the held-out half's transcripts); `--ids` keeps the
 * scripts whose ids start with one of them; `--language-model FILE|none` decodes with another
 * language model, or pocketsphinx-en-us's own; `--warp-factors none|LIST` turns the per-call warp
 * choice off or tries other factors, `--call-adaptation none` the per-call MLLR, `--voice-adaptations none|LIST` the per-call choice of a voice
 * adaptation, `--reference-lengths none` the refit of order and account numbers one digit off the
 * records' lengths; `--review-below N` the confidence below which the reasoner holds a fact for
 * review (0 holds none for its words' confidence; the call and length rules still hold; tools/eval/review-threshold.ts chooses it); `--json FILE` keeps every
 * clip's transcript (words and confidences too) and facts. A held fact is not right, and not
 * stated wrongly: the table's review column counts both, and the share of stated facts right.
 */
import { writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { normalizeForTranscription } from "@voxtrail/audio";
import { mapLimit, Transcript } from "@voxtrail/core";
import {
  countWordErrors,
  JsonlRecordLookup,
  LocalReasoner,
  PocketsphinxTranscriber,
  type ReferenceLengths,
} from "@voxtrail/providers";
import {
  type Clip,
  ClipAudio,
  DELIVERIES,
  NOISE_LEVELS,
  NOISE_SNR_DB,
  type NoiseLevel,
  VOICES,
} from "./accuracy-audio";
import { CORPUS_FILE, loadAccuracyCorpus, RECORDS_FILE, SPLITS, type Split } from "./accuracy-corpus";
import { speakersNamed } from "./accuracy-speakers";
import type { FactAccuracyResult } from "./fact-accuracy-result";
import { type ClipResult, summarizeClips } from "./fact-accuracy-summary";
import { factAccuracyTable } from "./fact-accuracy-table";
import { type FactScore, isRecordFact, scoreFacts, tallyFacts } from "./fact-scoring";
import type { Delivery } from "./transcription-wer";

export type { FactAccuracyResult } from "./fact-accuracy-result";

/** Each clip's transcription deadline: 10 minutes, so the figures do not depend on the machine's load. */
const BENCH_TIMEOUT_MS = 600_000;

/** Which clips to run (default: all of them) and how many at once. */
export interface FactAccuracyOptions {
  log?: (line: string) => void;
  /** The first N scripts of each half; default all. */
  scripts?: number;
  /** The halves to measure; default both. Tuning work should pick `tuning` alone. */
  splits?: readonly Split[];
  /** Speaker ids (accuracy-speakers.ts); default the tuned flite voices. */
  voices?: readonly string[];
  deliveries?: readonly Delivery[];
  noises?: readonly NoiseLevel[];
  /** Clips transcribed at once (pocketsphinx is CPU-bound: one per core); default 2. */
  concurrency?: number;
  /** The transcriber's telephony adaptation: a means file, `null` for none; default the bundled one. */
  telephonyAdaptation?: string | null;
  /** The transcriber's language model: a file, `null` for pocketsphinx-en-us's; default the voicemail one. */
  languageModel?: string | null;
  /** The transcriber's warp factors to choose among per call; default its own, `[1]` for none. */
  warpFactors?: readonly number[];
  /** The transcriber's voice adaptations to choose among per call; default its own, `[]` for none. */
  voiceAdaptations?: readonly string[];
  /** Whether the transcriber adapts to each call's speaker (per-call MLLR); default its own (on). */
  callAdaptation?: boolean;
  /** The lengths order and account numbers are refitted to; default the records', as the local runtime; `{}` for none. */
  referenceLengths?: ReferenceLengths;
  /** Only the scripts whose ids start with one of these; default all. */
  ids?: readonly string[];
  /** The reasoner's review threshold; default the reasoner's own, 0 to hold nothing. */
  reviewBelow?: number;
}

/** Runs the clips the options select through normalisation, transcription and reasoning. */
export async function benchFactAccuracy(options: FactAccuracyOptions = {}): Promise<FactAccuracyResult> {
  const started = performance.now();
  const records = await JsonlRecordLookup.fromFile(RECORDS_FILE);
  const corpus = await loadAccuracyCorpus(CORPUS_FILE, records);
  const scripts = (options.splits ?? SPLITS).flatMap((split) =>
    corpus.scripts
      .filter((script) => script.split === split)
      .filter((script) => options.ids?.some((id) => script.id.startsWith(id)) ?? true)
      .slice(0, options.scripts),
  );
  const audio = await ClipAudio.open(corpus.noiseSeed, CORPUS_FILE);
  const transcriber = new PocketsphinxTranscriber({
    ...(options.telephonyAdaptation === undefined
      ? {}
      : { telephonyAdaptation: options.telephonyAdaptation }),
    ...(options.languageModel === undefined ? {} : { languageModel: options.languageModel }),
    ...(options.warpFactors === undefined ? {} : { warpFactors: options.warpFactors }),
    ...(options.voiceAdaptations === undefined ? {} : { voiceAdaptations: options.voiceAdaptations }),
    ...(options.callAdaptation === undefined ? {} : { callAdaptation: options.callAdaptation }),
    referenceLengths: options.referenceLengths ?? records.referenceLengths(),
    // A pass the deadline could not cover is skipped: on a busy machine that would change what is
    // measured, so the bench's deadline is far beyond any clip's.
    timeoutMs: BENCH_TIMEOUT_MS,
  });
  const reasoner = new LocalReasoner(
    options.reviewBelow === undefined ? {} : { reviewBelow: options.reviewBelow },
  );

  const clips: Clip[] = scripts.flatMap((script) =>
    (options.voices ?? VOICES).flatMap((voice) =>
      (options.deliveries ?? DELIVERIES).flatMap((delivery) =>
        (options.noises ?? NOISE_LEVELS).map((noise) => ({ script, voice, delivery, noise })),
      ),
    ),
  );
  options.log?.(`fact-accuracy: ${clips.length} clips, kept in ${audio.dir}`);
  const results = await mapLimit(clips, options.concurrency ?? 2, async (clip, index) => {
    const { wav, durationMs } = normalizeForTranscription(await audio.wav(clip));
    const transcribeStarted = performance.now();
    const transcript = Transcript.parse(await transcriber.transcribe(wav, { language: "en" }));
    const realTimeFactor = (performance.now() - transcribeStarted) / durationMs;
    const record = await reasoner.reason(transcript, records);
    const counts = countWordErrors(clip.script.text, transcript.text);
    const errors = counts.substitutions + counts.deletions + counts.insertions;
    const result: ClipResult = {
      script: clip.script.id,
      split: clip.script.split,
      voice: clip.voice,
      delivery: clip.delivery,
      noise: clip.noise,
      transcript: transcript.text,
      words: transcript.words,
      referenceWords: counts.referenceWords,
      errors,
      wer: errors / counts.referenceWords,
      facts: scoreFacts(clip.script.expected, record),
      realTimeFactor,
    };
    const facts = tallyFacts(result.facts);
    options.log?.(
      `fact-accuracy: ${index + 1}/${clips.length} ${clip.script.id} ${clip.voice} ${clip.delivery} ${clip.noise}: WER ${result.wer.toFixed(2)}, facts ${facts.right}/${facts.total}`,
    );
    return result;
  });

  const textReference = {} as FactAccuracyResult["textReference"];
  for (const split of SPLITS) {
    const scores: FactScore[] = [];
    for (const script of scripts.filter((candidate) => candidate.split === split)) {
      const text = {
        text: script.text,
        words: [],
        language: "en",
        audioMs: 0,
        processor: transcriber.processor,
      };
      scores.push(...scoreFacts(script.expected, await reasoner.reason(text, records)));
    }
    textReference[split] = { facts: tallyFacts(scores), records: tallyFacts(scores, isRecordFact) };
  }
  return {
    engine: `${transcriber.processor.model} ${transcriber.processor.version}`,
    snrDb: NOISE_SNR_DB,
    audioDir: audio.dir,
    clips: results,
    summaries: summarizeClips(results),
    textReference,
    wallMs: Math.round(performance.now() - started),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      scripts: { type: "string" },
      splits: { type: "string" },
      ids: { type: "string" },
      json: { type: "string" },
      "language-model": { type: "string" },
      voices: { type: "string" },
      deliveries: { type: "string" },
      noises: { type: "string" },
      concurrency: { type: "string", default: "2" },
      "telephony-adaptation": { type: "string" },
      "warp-factors": { type: "string" },
      "voice-adaptations": { type: "string" },
      "call-adaptation": { type: "string" },
      "reference-lengths": { type: "string" },
      "review-below": { type: "string" },
    },
  });
  const list = <T extends string>(value: string | undefined, known: readonly T[]): T[] | undefined => {
    const picked = value?.split(",");
    const unknown = picked?.filter((item) => !known.includes(item as T));
    if (unknown?.length) throw new Error(`unknown ${unknown.join(", ")}; choose from ${known.join(", ")}`);
    return picked as T[] | undefined;
  };
  const numbers = (value: string): number[] => {
    const parsed = value.split(",").map(Number);
    if (parsed.some((n) => !(n > 0))) throw new Error(`--warp-factors takes positive numbers: ${value}`);
    return parsed;
  };
  const callAdaptation = (value: string): boolean => {
    if (value !== "none")
      throw new Error(`--call-adaptation takes none (the default adapts to each call): ${value}`);
    return false;
  };
  const referenceLengths = (value: string): ReferenceLengths => {
    if (value !== "none")
      throw new Error(`--reference-lengths takes none (the default is the records'): ${value}`);
    return {};
  };
  const result = await benchFactAccuracy({
    ...(values.scripts ? { scripts: Number(values.scripts) } : {}),
    splits: list(values.splits, SPLITS),
    ...(values.ids ? { ids: values.ids.split(",") } : {}),
    ...(values["language-model"] === undefined
      ? {}
      : { languageModel: values["language-model"] === "none" ? null : values["language-model"] }),
    ...(values.voices === undefined
      ? {}
      : { voices: speakersNamed(values.voices).map((speaker) => speaker.id) }),
    deliveries: list(values.deliveries, DELIVERIES),
    noises: list(values.noises, NOISE_LEVELS),
    concurrency: Number(values.concurrency),
    ...(values["telephony-adaptation"] === undefined
      ? {}
      : {
          telephonyAdaptation:
            values["telephony-adaptation"] === "none" ? null : values["telephony-adaptation"],
        }),
    ...(values["warp-factors"] === undefined
      ? {}
      : { warpFactors: values["warp-factors"] === "none" ? [1] : numbers(values["warp-factors"]) }),
    ...(values["voice-adaptations"] === undefined
      ? {}
      : {
          voiceAdaptations:
            values["voice-adaptations"] === "none" ? [] : values["voice-adaptations"].split(","),
        }),
    ...(values["call-adaptation"] === undefined
      ? {}
      : { callAdaptation: callAdaptation(values["call-adaptation"]) }),
    ...(values["reference-lengths"] === undefined
      ? {}
      : { referenceLengths: referenceLengths(values["reference-lengths"]) }),
    ...(values["review-below"] === undefined ? {} : { reviewBelow: Number(values["review-below"]) }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (values.json) await writeFile(values.json, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(factAccuracyTable(result));
}
