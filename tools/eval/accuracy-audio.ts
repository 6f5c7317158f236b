/**
 * The fact-accuracy corpus as audio: each script spoken by one of the corpus's speakers
 * (accuracy-speakers.ts), with line noise at a given level, delivered as 16 kHz PCM or as 8 kHz
 * mu-law. Deterministic (the synthesizers are, and the noise comes from a PRNG seeded by the
 * corpus's `noiseSeed` and the clip), and kept in the OS temp directory under a name made from the
 * corpus and the files that make clips, each speech file under its synthesizer's version, so clips
 * are made once and remade whenever any of those changes or the files are missing.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  decodeMono16,
  encodeMuLaw,
  encodeSamples,
  resample,
  TRANSCRIPTION_FORMAT,
  toInt16,
  writeWav,
} from "@voxtrail/audio";
import type { FliteVoice } from "@voxtrail/local";
import type { AccuracyScript } from "./accuracy-corpus";
import { speakerNamed, TUNED_VOICES } from "./accuracy-speakers";
import { SpeakerSpeech } from "./speaker-speech";
import type { Delivery } from "./transcription-wer";

/** The tuned voices of the corpus, the ones every tuning step reads: kal (flite's 16 kHz kal16), awb, rms, slt. */
export const VOICES: readonly FliteVoice[] = TUNED_VOICES;

/** How each clip reaches the transcriber: as spoken (16 kHz PCM) and as a phone line delivers it. */
export const DELIVERIES: readonly Delivery[] = ["wideband", "telephony"];

/**
 * Line noise levels, as signal-to-noise ratios in dB: the noise's power against the mean power of
 * flite's speech (its own short pauses included, the added silence before and after not).
 */
export const NOISE_SNR_DB = { light: 40, heavy: 30 } as const;
export type NoiseLevel = keyof typeof NOISE_SNR_DB;
export const NOISE_LEVELS = Object.keys(NOISE_SNR_DB) as NoiseLevel[];

/** One clip: a script in a voice, with noise, as delivered. */
export interface Clip {
  script: AccuracyScript;
  /** A speaker's id (accuracy-speakers.ts): a tuned flite voice or a held-out speaker. */
  voice: string;
  delivery: Delivery;
  noise: NoiseLevel;
}

const SAMPLE_RATE = TRANSCRIPTION_FORMAT.sampleRate;
const TELEPHONY_RATE = 8000;
/** Silence (line noise only) before the caller speaks and after, as in fixtures/voicemail. */
const LEAD_MS = 400;
const TAIL_MS = 600;

/**
 * Makes and keeps the clips of one corpus. Each script is spoken once per voice (flite, one child
 * process per call, so calls from concurrent clips run side by side); noise and delivery are
 * applied per clip.
 *
 * @example
 * const audio = await ClipAudio.open(corpus.noiseSeed, CORPUS_FILE);
 * const wav = await audio.wav({ script, voice: "slt", delivery: "telephony", noise: "heavy" });
 */
export class ClipAudio {
  readonly #speech = new Map<string, Promise<Int16Array>>();
  readonly #speakers = new SpeakerSpeech();

  private constructor(
    /** Where the clips are kept. */
    readonly dir: string,
    readonly noiseSeed: number,
  ) {}

  /** The kept clips of the corpus whose noise seed is `noiseSeed`, in a directory named after its inputs. */
  static async open(noiseSeed: number, corpusFile: string): Promise<ClipAudio> {
    const hash = createHash("sha256");
    hash.update(await readFile(corpusFile));
    for (const file of ["./accuracy-audio.ts", "./accuracy-speakers.ts", "./speaker-speech.ts"])
      hash.update(await readFile(fileURLToPath(new URL(file, import.meta.url))));
    const dir = join(tmpdir(), `voxtrail-fact-accuracy-${hash.digest("hex").slice(0, 12)}`);
    await mkdir(dir, { recursive: true });
    return new ClipAudio(dir, noiseSeed);
  }

  /** The clip's WAV file: 16 kHz 16-bit PCM (wideband) or 8 kHz mu-law (telephony), made if missing. */
  async wav(clip: Clip): Promise<Uint8Array> {
    const file = join(this.dir, `${clip.script.id}.${clip.voice}.${clip.noise}.${clip.delivery}.wav`);
    return readOrMake(file, async () => {
      const speech = await this.#spoken(clip.script, clip.voice);
      const seed = `${this.noiseSeed}/${clip.script.id}/${clip.voice}/${clip.noise}`;
      const call = withLineNoise(padded(speech), speechPower(speech), NOISE_SNR_DB[clip.noise], seed);
      return clip.delivery === "wideband"
        ? writeWav(TRANSCRIPTION_FORMAT, encodeSamples(call, "pcm_s16le"))
        : writeWav(
            { encoding: "pcm_mulaw", sampleRate: TELEPHONY_RATE, channels: 1 },
            encodeMuLaw(resample(call, SAMPLE_RATE, TELEPHONY_RATE)),
          );
    });
  }

  /**
   * The speaker's 16 kHz speech of the script, spoken once per instance and kept on disk under the
   * synthesizer's version.
   */
  #spoken(script: AccuracyScript, voice: string): Promise<Int16Array> {
    const key = `${script.id}.${voice}`;
    let speech = this.#speech.get(key);
    if (!speech) {
      const speaker = speakerNamed(voice);
      speech = this.#speakers.version(speaker.synthesizer).then(async (version) => {
        const tag = createHash("sha256").update(version).digest("hex").slice(0, 8);
        const wav = await readOrMake(join(this.dir, `${key}.${tag}.speech.wav`), async () =>
          writeWav(
            TRANSCRIPTION_FORMAT,
            encodeSamples(await this.#speakers.speak(speaker, script.text), "pcm_s16le"),
          ),
        );
        const { samples, sampleRate } = decodeMono16(wav);
        if (sampleRate !== SAMPLE_RATE)
          throw new Error(`${voice} spoke at ${sampleRate} Hz, not ${SAMPLE_RATE}`);
        return samples;
      });
      this.#speech.set(key, speech);
    }
    return speech;
  }
}

/** The file's bytes, or `make()`'s, written there first (through a temporary name, so never half). */
async function readOrMake(file: string, make: () => Promise<Uint8Array>): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const bytes = await make();
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, bytes);
  await rename(partial, file);
  return bytes;
}

function padded(speech: Int16Array): Int16Array {
  const lead = (SAMPLE_RATE * LEAD_MS) / 1000;
  const call = new Int16Array(lead + speech.length + (SAMPLE_RATE * TAIL_MS) / 1000);
  call.set(speech, lead);
  return call;
}

function speechPower(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return sum / Math.max(1, samples.length);
}

/**
 * `call` plus Gaussian white noise from a PRNG seeded by `seed`, band-limited to the telephone band
 * (a round trip through 8 kHz: nothing above 3.6 kHz) and scaled to `snrDb` below `power`.
 */
function withLineNoise(call: Int16Array, power: number, snrDb: number, seed: string): Int16Array {
  const random = mulberry32(fnv1a(seed));
  const white = new Int16Array(call.length);
  for (let i = 0; i < white.length; i++) white[i] = toInt16(gaussian(random) * 4000);
  const band = resample(resample(white, SAMPLE_RATE, TELEPHONY_RATE), TELEPHONY_RATE, SAMPLE_RATE);
  const gain = Math.sqrt(power / 10 ** (snrDb / 10) / speechPower(band));
  return call.map((sample, i) => toInt16(sample + (band[i] ?? 0) * gain));
}

/** A standard normal deviate (Box-Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A 32-bit seed from a string (FNV-1a). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** A small deterministic PRNG: uniform numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
