import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { decodeMono16, encodeSamples, TRANSCRIPTION_FORMAT, writeWav } from "@voxtrail/audio";
import {
  InvalidAudio,
  InvalidInput,
  LOCAL_BOUNDARY,
  type Processor,
  quoteLanguage,
  type ReferenceLengths,
  type Transcriber,
  TranscriberLanguageUnsupported,
  type Transcript,
  TranscriptionFailed,
  type TranscriptWord,
} from "@voxtrail/core";
import { isNarrowband } from "./bandwidth";
import { checkCallAdaptation, EN_US_MODEL, estimateCallMeans } from "./call-adaptation";
import { lengthGrammar, numbersToRefit, REFERENCE_DIGITS, replaceNumber } from "./number-length";
import { type NumberWindow, numberGrammar, numberWindows, replaceWindows } from "./number-windows";
import {
  parseBatchCepstralMean,
  parseFrontEndEstimate,
  parsePocketsphinxWords,
  withCepstralMean,
} from "./pocketsphinx-output";
import {
  alignmentArgs,
  alignmentGrammar,
  parseAcousticScore,
  pickSpeakerFit,
  type SpeakerAlignment,
  WARP_FACTORS,
} from "./speaker-fit";

/** Options of {@link PocketsphinxTranscriber}. */
export interface PocketsphinxOptions {
  /** The recogniser to run; default `pocketsphinx_continuous`, found on `PATH`. */
  command?: string;
  /** Longest one transcription may take, all passes together, in milliseconds; default 120 000. */
  timeoutMs?: number;
  /**
   * Measure the audio's cepstral mean in a quick first pass and start the decode from it instead
   * of the model's default; default true. See {@link PocketsphinxTranscriber}.
   */
  cmnWarmup?: boolean;
  /**
   * Decode again, with a grammar of number words, each stretch where the decode heard a number
   * ({@link numberWindows}), and a number of the wrong length with a grammar of the right number
   * of digits; default true. See {@link PocketsphinxTranscriber}.
   */
  numberPass?: boolean;
  /**
   * How many digits the business's order and account numbers have, when each kind has one length
   * (e.g. `JsonlRecordLookup.referenceLengths()`); such a number heard one digit short or long is
   * decoded again as that many digits. Default none. See {@link PocketsphinxTranscriber}.
   */
  referenceLengths?: ReferenceLengths;
  /**
   * The model's means adapted to the telephone channel (a file SphinxTrain's `map_adapt` wrote),
   * used in place of its own for narrowband audio; default {@link TELEPHONY_ADAPTATION}, `null` for
   * none. See {@link PocketsphinxTranscriber}.
   */
  telephonyAdaptation?: string | null;
  /**
   * The language model to decode with (sphinx binary or ARPA); default
   * {@link VOICEMAIL_LANGUAGE_MODEL}, `null` for pocketsphinx-en-us's general one. See
   * {@link PocketsphinxTranscriber}.
   */
  languageModel?: string | null;
  /**
   * Frequency-warp factors to choose among for each call by how well the model then explains the
   * words decoded; default {@link WARP_FACTORS}, `[1]` for no warping. See
   * {@link PocketsphinxTranscriber}.
   */
  warpFactors?: readonly number[];
  /**
   * Further adaptations for narrowband audio (means files, as `telephonyAdaptation`), each
   * estimated from a group of voices, to choose among for each call as the warp factors are (each
   * with each factor); default [{@link FEMALE_VOICE_ADAPTATION}], `[]` for none. See
   * {@link PocketsphinxTranscriber}.
   */
  voiceAdaptations?: readonly string[];
  /** The aligner for the warp and adaptation choice; default `pocketsphinx_batch`, found on `PATH`. */
  alignCommand?: string;
  /**
   * Adapt the model to each call's speaker from what its decode heard (one MLLR transform,
   * {@link estimateCallMeans}) and decode the call again with it; default true. Needs Debian's
   * `sphinxtrain`. See {@link PocketsphinxTranscriber}.
   */
  callAdaptation?: boolean;
}

/**
 * The bundled telephone-channel adaptation of pocketsphinx-en-us: its means, moved by SphinxTrain
 * towards the tuning half of the accuracy corpus (flite voices, line noise, 8 kHz mu-law, as the
 * pipeline normalises it), first by an MLLR transform, then each one on its own (MAP);
 * `npm run adapt:telephony` rebuilds it (tools/models/telephony-adaptation.ts).
 */
export const TELEPHONY_ADAPTATION = fileURLToPath(
  new URL("../../models/telephony-en-us.means", import.meta.url),
);

/**
 * A second telephone-channel adaptation, estimated as {@link TELEPHONY_ADAPTATION} is but from the
 * one female voice of the accuracy corpus (flite's slt) alone, which the first fits worst: a
 * speaker's adaptation more than a female one. `npm run adapt:telephony` rebuilds it too.
 */
export const FEMALE_VOICE_ADAPTATION = fileURLToPath(
  new URL("../../models/telephony-en-us-female.means", import.meta.url),
);

/**
 * pocketsphinx-en-us's general English model mixed with a model of voicemail text (the accuracy
 * corpus's tuning half and fixtures/language-model/voicemail-seed.txt); built by
 * `npm run build:lm` (tools/models/voicemail-language-model.ts), which `scripts/setup.sh` runs: at
 * 27 MB it is not kept in git.
 */
export const VOICEMAIL_LANGUAGE_MODEL = fileURLToPath(
  new URL("../../models/voicemail-en-us.lm.bin", import.meta.url),
);

const DEFAULT_COMMAND = "pocketsphinx_continuous";
const DEFAULT_ALIGN_COMMAND = "pocketsphinx_batch";
/**
 * Search settings of the measuring pass: narrow beams and no second search pass, about a quarter
 * of a full decode. Its words are discarded; the front end (and so the cepstral mean) is the same.
 */
const MEASURING_SEARCH = "-fwdflat no -bestpath no -beam 1e-20 -wbeam 1e-10 -pbeam 1e-20".split(" ");
const DEFAULT_TIMEOUT_MS = 120_000;
/** Time a second decode (warped or otherwise adapted) is given, as a multiple of the first decode's (alignments included). */
const REFIT_HEADROOM = 1.5;
/** What a pass stopped at the deadline says (`TranscriptionFailed`). */
const TOOK_TOO_LONG = "took longer than";
const INSTALL_HINT =
  "install Debian's pocketsphinx, pocketsphinx-en-us, sphinxtrain and sphinxbase-utils (scripts/setup.sh does that)";

/**
 * Speech recognition with CMU pocketsphinx and its US English model, run out of process
 * (`pocketsphinx_continuous -infile <16 kHz WAV> -time yes`) on this machine: the audio never
 * leaves it (boundary `local`). Its cost shows in each job's `transcribe.engine` timing.
 *
 * The recogniser normalises features with a running cepstral mean that starts from the model's
 * default and is first updated after several seconds of speech, so the opening words of audio
 * whose channel differs from the training data (telephone band-limited speech above all) come out
 * as noise. With `cmnWarmup` (the default) a quick measuring pass (narrow search, words
 * discarded) reads the mean off this audio first, and the real decode starts from it: on 8 kHz
 * voicemails this cuts the word error rate a lot, on wideband audio a little (the fixture tests
 * pin both), for the price of the extra, cheaper pass. Audio with nothing above the telephone band
 * ({@link isNarrowband}) is also decoded without pocketsphinx's noise removal, whose noise
 * estimate the empty upper bands mislead, and with the means of `telephonyAdaptation` (the bundled
 * {@link TELEPHONY_ADAPTATION} by default), moved towards the telephone channel. As one MLLR
 * transform of the means it took the accuracy corpus's held-out telephony copies from a word
 * error rate of 0.460 to 0.309 and from 93 to 134 facts of 256; each mean then adapted on its own
 * (MAP, from the transformed ones) took the tuning half split in two from 234 to 244 facts of 256,
 * and the held-out telephony copies from 216 to 237 (docs/benchmarks.md). It was estimated on
 * synthetic (flite) voices: for real callers, estimate one from their calls the same way. The
 * processor's model names it by hash.
 *
 * It decodes with `languageModel`, by default {@link VOICEMAIL_LANGUAGE_MODEL}: pocketsphinx-en-us's
 * general English model mixed half and half with a model of voicemail text in which numbers and
 * days are classes (it learns where a caller says a number or a day, never which). On the
 * accuracy corpus's tuning half, each half's model measured on the other half's telephony copies
 * took facts from 156 to 193 of 256 and the word error rate from 0.30 to 0.17 with the scripts'
 * text alone, and to 221 of 256 and 0.10 with the seed text too (docs/benchmarks.md). The text
 * was written for this project, not said by callers: for real callers, build one from their
 * transcripts (`npm run build:lm -- --text`). The processor's model names it by hash.
 *
 * Voices far from those the model mostly heard (higher voices above all) are decoded with their
 * spectrum warped towards them (vocal tract length normalisation) and, on narrowband audio, with an
 * adaptation estimated from such a voice: the main decode's words are aligned to the audio under
 * each of `warpFactors` ({@link WARP_FACTORS}) with each adaptation (the telephony one, then each
 * of `voiceAdaptations`, by default {@link FEMALE_VOICE_ADAPTATION}), in cheap single-utterance
 * passes of `pocketsphinx_batch` with a grammar of exactly those words, and when one aligns clearly
 * better than the decode's own settings ({@link pickSpeakerFit}) the audio is decoded again with
 * it and its own cepstral mean; not when what is left of `timeoutMs` could not cover a second
 * decode. On the accuracy corpus's tuning half (each half's language model on the other half's
 * telephony copies) the warp took the word error rate from 0.173 to 0.162, for the one female
 * voice from 0.291 to 0.249; a voice transform (estimated from the other half too) then took
 * that voice's facts from 36 to 41 of 64, and 57 with each mean adapted. The three male voices
 * were rarely refitted (docs/benchmarks.md).
 *
 * With `numberPass` (the default) each stretch where the decode heard a number
 * ({@link numberWindows}) is decoded again, alone, with a grammar that allows only number words
 * (and, around them, the few words callers say there), and the number it hears replaces the first
 * decode's words there: the general language model often turns digits into words ("fight fight
 * fight" for "five five five"). A phone number then heard with 8, 9 or 11 digits (a dropped "oh"
 * or "four") is decoded once more with a grammar of exactly 10 digits in callers' groupings
 * ({@link numbersToRefit}, {@link lengthGrammar}): on the tuning half split in two, 4 more
 * callback numbers right of 56, and 2 that had none became wrong ones. With `referenceLengths`,
 * an order or account number one digit off its kind's length is decoded once more the same way
 * (the local runtime passes the lengths its records share). A transcript with no number costs
 * nothing more.
 *
 * With `callAdaptation` (the default) the model is then adapted to the call's own speaker: what the
 * decode heard is aligned to the audio and one MLLR transform of the means estimated from it
 * ({@link estimateCallMeans}, SphinxTrain's `bw` and `mllr_solve`), and the call is decoded again
 * (numbers too) with the transformed means, when what is left of `timeoutMs` covers one and a half
 * times what the first took; if the deadline comes during it all the same, the first decode stands
 * (as it does when there were no words, or a tool failed). The processor names the adaptation
 * whenever it is on, as it names the warp and the voice adaptations: what a call may get, not
 * what each got. Unsupervised, so it needs no transcript, and it fits speakers no tuning step
 * heard: docs/accuracy-by-speaker.md has what it does to them and to the tuned voices.
 *
 * Each word's confidence is its posterior in the decode that gave it, lowered where the passes
 * disagree: a number word the grammar pass put in place of another word is no surer than one minus
 * that word's posterior ({@link replaceWindows}), and a length refit's digits no surer than the
 * least sure word they replace ({@link replaceNumber}); a forced grammar's posterior alone is
 * never the word's confidence. The reasoners hold a fact whose words fall below their review
 * threshold (docs/fact-confidence.md).
 *
 * Errors are `TranscriptionFailed` (binary missing, non-zero exit, timeout),
 * `TranscriberLanguageUnsupported` (any language but English) or `InvalidAudio` (not a decodable 16 kHz WAV); no message carries what was said.
 *
 * @example
 * const transcriber = new PocketsphinxTranscriber({ timeoutMs: 60_000 });
 * const { wav } = normalizeForTranscription(voicemailBytes); // from @voxtrail/audio
 * const transcript = await transcriber.transcribe(wav, { language: "en" });
 * transcript.words[0]; // { word: "hi", startMs: 160, endMs: 490, confidence: 0.05 }
 */
export class PocketsphinxTranscriber implements Transcriber {
  readonly #command: string;
  readonly #timeoutMs: number;
  readonly #cmnWarmup: boolean;
  readonly #numberPass: boolean;
  readonly #referenceLengths: ReferenceLengths;
  readonly #telephonyAdaptation: string | null;
  readonly #languageModel: string | null;
  readonly #warpFactors: readonly number[];
  readonly #voiceAdaptations: readonly string[];
  readonly #alignCommand: string;
  readonly #callAdaptation: boolean;
  #model: string | undefined;

  constructor(options: PocketsphinxOptions = {}) {
    this.#command = options.command ?? DEFAULT_COMMAND;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#cmnWarmup = options.cmnWarmup ?? true;
    this.#numberPass = options.numberPass ?? true;
    this.#referenceLengths = checkedLengths(options.referenceLengths ?? {});
    this.#telephonyAdaptation =
      options.telephonyAdaptation === undefined ? TELEPHONY_ADAPTATION : options.telephonyAdaptation;
    this.#languageModel =
      options.languageModel === undefined ? VOICEMAIL_LANGUAGE_MODEL : options.languageModel;
    this.#warpFactors = options.warpFactors ?? WARP_FACTORS;
    this.#voiceAdaptations = options.voiceAdaptations ?? [FEMALE_VOICE_ADAPTATION];
    this.#alignCommand = options.alignCommand ?? DEFAULT_ALIGN_COMMAND;
    this.#callAdaptation = options.callAdaptation ?? true;
  }

  /**
   * Provider `pocketsphinx`, the Debian package's version, boundary `local`; the model names the
   * language model, the telephony adaptation and the voice adaptations, if any, by the first 12 hex
   * digits of their sha256, the warp factors chosen among, and the reference lengths numbers are
   * refitted to.
   */
  get processor(): Processor {
    this.#model ??= this.#modelName();
    return {
      provider: "pocketsphinx",
      model: this.#model,
      version: pocketsphinxVersion(),
      boundary: LOCAL_BOUNDARY,
    };
  }

  #modelName(): string {
    let model = "cmusphinx-en-us (pocketsphinx-en-us)";
    if (this.#languageModel !== null) {
      model += ` + voicemail LM ${shortHash(this.#languageModel, "the language model", "npm run build:lm")}`;
    }
    if (this.#warpFactors.length > 1) model += ` + speaker warp of ${this.#warpFactors.join("/")}`;
    const adaptation = (what: string) => (file: string) => shortHash(file, what, "npm run adapt:telephony");
    if (this.#telephonyAdaptation !== null) {
      model += ` + telephony means ${adaptation("the telephony adaptation")(this.#telephonyAdaptation)}`;
    }
    if (this.#voiceAdaptations.length > 0) {
      const hashes = this.#voiceAdaptations.map(adaptation("the voice adaptation"));
      model += ` + per-call voice means ${hashes.join("/")}`;
    }
    if (this.#callAdaptation) {
      checkCallAdaptation(); // SphinxTrain missing is refused before any pass, as a missing model is.
      model += " + per-call MLLR";
    }
    const lengths = Object.entries(this.#referenceLengths).map(([kind, digits]) => `${kind} ${digits}`);
    if (this.#numberPass && lengths.length > 0) model += ` + reference lengths ${lengths.join("/")}`;
    return model;
  }

  /**
   * Transcribes a 16 kHz WAV file (mono 16-bit PCM, as `normalizeForTranscription` writes; other
   * encodings at 16 kHz are converted). `language` must be English (`en`, `en-US`, ...). The
   * recogniser's input and logs are written to a new directory under `tmpDir` (the stage attempt's),
   * removed when the call ends; without `tmpDir` (a caller outside the stage kernel, e.g. a test),
   * under the OS temp directory.
   */
  async transcribe(
    wav16k: Uint8Array,
    options: { language: string; signal?: AbortSignal; tmpDir?: string },
  ): Promise<Transcript> {
    if (!/^en(-|$)/i.test(options.language)) {
      throw new TranscriberLanguageUnsupported(
        `the embedded transcriber (pocketsphinx) has only a US English model: no embedded recogniser ` +
          `here hears ${quoteLanguage(options.language)}; transcribe such calls with Amazon Transcribe ` +
          `(--transcriber amazon-transcribe) or another transcriber that takes the language`,
      );
    }
    const { samples, sampleRate } = decodeMono16(wav16k);
    if (sampleRate !== TRANSCRIPTION_FORMAT.sampleRate) {
      throw new InvalidAudio(
        `pocketsphinx needs 16000 Hz audio, this is ${sampleRate} Hz: normalise it first (normalizeForTranscription)`,
      );
    }
    const words = await this.#recognise(samples, options.tmpDir ?? tmpdir(), options.signal);
    return {
      text: words.map((w) => w.word).join(" "),
      words,
      language: options.language,
      audioMs: (samples.length * 1000) / sampleRate,
      processor: this.processor,
    };
  }

  async #recognise(samples: Int16Array, parent: string, signal?: AbortSignal): Promise<TranscriptWord[]> {
    const started = Date.now();
    const deadline = started + this.#timeoutMs;
    const dir = await mkdtemp(join(parent, "voxtrail-pocketsphinx-"));
    try {
      const input = join(dir, "input.wav");
      await writeFile(input, wav16k(samples));
      // What every pass is told about the channel (and, below, the cepstral mean measured).
      const narrowband = isNarrowband(samples);
      let channel = channelFor(narrowband, this.#telephonyAdaptation);
      this.#model ??= this.#modelName(); // A missing model file is refused before any pass.
      const lm = this.#languageModel === null ? [] : ["-lm", this.#languageModel];
      const args = ["-infile", input, "-time", "yes", ...channel, ...lm];
      let estimate: ReturnType<typeof parseFrontEndEstimate>;
      if (this.#cmnWarmup) {
        const log = join(dir, "measure.log");
        await this.#run([...args, ...MEASURING_SEARCH, "-logfn", log], deadline, signal);
        estimate = parseFrontEndEstimate(await readFile(log, "utf8"));
      }
      let frontEnd = estimate
        ? await this.#featParams(join(dir, "feat.params"), estimate.featParamsPath, estimate.cepstralMean)
        : [];
      const decode = () =>
        this.#run(
          ["-infile", input, "-time", "yes", ...channel, ...frontEnd, ...lm, "-logfn", "/dev/null"],
          deadline,
          signal,
        );
      const numbers = (heard: TranscriptWord[]) =>
        this.#numberPass
          ? this.#decodeNumbers(heard, samples, dir, [...channel, ...frontEnd], deadline, signal)
          : heard;
      const decodeStarted = Date.now();
      let words = parsePocketsphinxWords(await decode());
      // A second decode costs as much again: tried only if the deadline leaves room for it.
      const roomToRefit = Date.now() + (Date.now() - decodeStarted) * REFIT_HEADROOM < deadline;
      const fit = roomToRefit
        ? await this.#chooseSpeakerFit(dir, words, narrowband, deadline, signal)
        : undefined;
      const warp = fit ? ["-warp_params", String(fit.factor)] : [];
      if (fit) {
        channel = [...channelFor(narrowband, fit.adaptation), ...warp];
        if (estimate) {
          const file = join(dir, "feat-refit.params");
          frontEnd = await this.#featParams(file, estimate.featParamsPath, fit.cepstralMean);
        }
        words = parsePocketsphinxWords(await decode());
      }
      words = await numbers(words);
      // The call decoded once more with the model adapted to its speaker, if that fits in time too.
      const firstPassMs = Date.now() - started;
      // Its tools and a decode with the number pass again cost more than the first pass took.
      if (!this.#callAdaptation || Date.now() + firstPassMs * REFIT_HEADROOM >= deadline) return words;
      const modelDir = estimate ? dirname(estimate.featParamsPath) : EN_US_MODEL.acoustic;
      const usedMeans = narrowband ? (fit ? fit.adaptation : this.#telephonyAdaptation) : null;
      try {
        const callMeans = await estimateCallMeans({
          dir,
          input,
          words,
          means: usedMeans ?? join(modelDir, "means"),
          removeNoise: !narrowband,
          ...(fit ? { warp: fit.factor } : {}),
          modelDir,
          run: (command, toolArgs) => this.#run(toolArgs, deadline, signal, command),
        });
        if (callMeans === undefined) return words;
        channel = [...channelFor(narrowband, null), "-mean", callMeans, ...warp];
        return await numbers(parsePocketsphinxWords(await decode()));
      } catch (error) {
        // The deadline came during the adapted pass (the machine slowed): the first decode stands.
        if (error instanceof TranscriptionFailed && error.message.includes(TOOK_TOO_LONG)) return words;
        throw error;
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * `words` with each number decoded again: each stretch where one was heard
   * ({@link numberWindows}) with the number grammar, then each number of the wrong length
   * ({@link numbersToRefit}) with a grammar of its right length. `settings` are the decode's channel
   * and front end.
   */
  async #decodeNumbers(
    heard: TranscriptWord[],
    samples: Int16Array,
    dir: string,
    settings: readonly string[],
    deadline: number,
    signal?: AbortSignal,
  ): Promise<TranscriptWord[]> {
    const windows = numberWindows(heard);
    if (windows.length === 0) return heard;
    // Decodes one stretch of the audio alone with a grammar: the stretch as cut, and its words.
    const decodeStretch = async (stretch: NumberWindow, name: string, grammar: string) => {
      const from = msToSample(stretch.startMs);
      const to = Math.min(samples.length, msToSample(stretch.endMs));
      const file = join(dir, `${name}.wav`);
      await writeFile(file, wav16k(samples.subarray(from, to)));
      const args = ["-infile", file, "-time", "yes", ...settings, "-jsgf", grammar, "-logfn", "/dev/null"];
      const stdout = await this.#run(args, deadline, signal);
      return {
        window: { startMs: sampleToMs(from), endMs: sampleToMs(to) },
        words: parsePocketsphinxWords(stdout),
      };
    };
    const numbers = join(dir, "number.gram");
    await writeFile(numbers, numberGrammar());
    const decoded: { window: NumberWindow; words: TranscriptWord[] }[] = [];
    for (const [index, found] of windows.entries()) {
      decoded.push(await decodeStretch(found, `window-${index}`, numbers));
    }
    let words = replaceWindows(heard, decoded);
    const misheard = numbersToRefit(
      words,
      decoded.map(({ window }) => window),
      this.#referenceLengths,
    );
    for (const [index, stretch] of misheard.entries()) {
      const grammar = join(dir, `${stretch.kind}-${stretch.digits}.gram`);
      await writeFile(grammar, lengthGrammar(stretch));
      const refit = await decodeStretch(stretch, `${stretch.kind}-${index}`, grammar);
      words = replaceNumber(words, refit.window, refit.words);
    }
    return words;
  }

  /** Writes `file`, the model's `feat.params` starting from `cepstralMean`; returns `-featparams file`. */
  async #featParams(file: string, modelParams: string, cepstralMean: string): Promise<string[]> {
    await writeFile(file, withCepstralMean(await readFile(modelParams, "utf8"), cepstralMean));
    return ["-featparams", file];
  }

  /**
   * Aligns `heard` to the audio under each warp factor with each adaptation (narrowband audio: the
   * telephony adaptation, then each voice adaptation; none otherwise), with `pocketsphinx_batch` and
   * {@link alignmentGrammar} (one utterance, its cepstral mean taken over all of it), and picks
   * one ({@link pickSpeakerFit}).
   */
  async #chooseSpeakerFit(
    dir: string,
    heard: readonly TranscriptWord[],
    narrowband: boolean,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<SpeakerAlignment | undefined> {
    const own = narrowband ? this.#telephonyAdaptation : null;
    const adaptations = narrowband ? [own, ...this.#voiceAdaptations] : [own];
    const grammar = alignmentGrammar(heard);
    if (!grammar || this.#warpFactors.length * adaptations.length < 2) return undefined;
    const files = { dir, ctl: join(dir, "alignment.ctl"), grammar: join(dir, "alignment.gram") };
    await writeFile(files.grammar, grammar);
    await writeFile(files.ctl, "input\n");
    const alignments: SpeakerAlignment[] = [];
    for (const [index, adaptation] of adaptations.entries()) {
      for (const factor of this.#warpFactors) {
        const log = join(dir, `alignment-${index}-${factor}.log`);
        const args = alignmentArgs({ ...files, log }, factor, channelFor(narrowband, adaptation));
        await this.#run(args, deadline, signal, this.#alignCommand);
        const text = await readFile(log, "utf8");
        const score = parseAcousticScore(text);
        const cepstralMean = parseBatchCepstralMean(text);
        if (score !== undefined && cepstralMean !== undefined) {
          alignments.push({ factor, adaptation, score, cepstralMean });
        }
      }
    }
    return pickSpeakerFit(alignments, own);
  }

  /** Runs the recogniser without a shell and resolves with its standard output; `signal` kills it. */
  #run(args: string[], deadline: number, signal?: AbortSignal, command = this.#command): Promise<string> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] });
      const stop = () => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", stop, { once: true });
      child.on("close", () => signal?.removeEventListener("abort", stop));
      const chunks: Buffer[] = [];
      const timer = setTimeout(
        () => {
          child.kill("SIGKILL");
          reject(
            new TranscriptionFailed(`${command} ${TOOK_TOO_LONG} ${this.#timeoutMs} ms and was stopped`),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
      child.on("error", (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          new TranscriptionFailed(
            error.code === "ENOENT"
              ? `${command} was not found: ${INSTALL_HINT}`
              : `${command} could not be started (${error.code ?? error.name})`,
          ),
        );
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve(Buffer.concat(chunks).toString("utf8"));
        else if (code !== null) {
          reject(
            new TranscriptionFailed(
              `${command} exited with code ${code} (is the pocketsphinx-en-us model installed? ${INSTALL_HINT})`,
            ),
          );
        } else reject(new TranscriptionFailed(`${command} was stopped by ${signal}`));
      });
    });
  }
}

/**
 * What a pass is told about the channel: for narrowband audio, no noise removal (the empty upper
 * bands mislead its noise estimate) and the adapted means, if any; nothing for wideband audio.
 */
function channelFor(narrowband: boolean, adaptation: string | null): string[] {
  if (!narrowband) return [];
  return ["-remove_noise", "no", ...(adaptation === null ? [] : ["-mean", adaptation])];
}

/** `lengths`, each a whole number of 2 to 20 digits; `InvalidInput` naming the kind otherwise. */
function checkedLengths(lengths: ReferenceLengths): ReferenceLengths {
  for (const [kind, digits] of Object.entries(lengths)) {
    if (!Number.isInteger(digits) || digits < REFERENCE_DIGITS.min || digits > REFERENCE_DIGITS.max) {
      throw new InvalidInput(
        `referenceLengths.${kind} must be a whole number of ${REFERENCE_DIGITS.min} to ${REFERENCE_DIGITS.max} digits`,
      );
    }
  }
  return { ...lengths };
}

const SAMPLES_PER_MS = TRANSCRIPTION_FORMAT.sampleRate / 1000;
const msToSample = (ms: number) => Math.round(ms * SAMPLES_PER_MS);
const sampleToMs = (sample: number) => sample / SAMPLES_PER_MS;
const wav16k = (samples: Int16Array) => writeWav(TRANSCRIPTION_FORMAT, encodeSamples(samples, "pcm_s16le"));

/** The first 12 hex digits of a model file's sha256, which name it in lineage. */
function shortHash(file: string, what: string, rebuild: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    throw new TranscriptionFailed(`${what} ${file} cannot be read (${rebuild} builds the bundled one)`);
  }
  return createHash("sha256").update(bytes).digest("hex").slice(0, 12);
}

let cachedVersion: string | undefined;

/** The installed Debian pocketsphinx package's version, asked of dpkg once; "unknown" without dpkg. */
function pocketsphinxVersion(): string {
  if (cachedVersion === undefined) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    const query = spawnSync("dpkg-query", ["-W", "-f", "${Version}", "pocketsphinx"], {
      encoding: "utf8",
      timeout: 10_000,
    });
    cachedVersion = query.status === 0 && query.stdout.trim() !== "" ? query.stdout.trim() : "unknown";
  }
  return cachedVersion;
}
