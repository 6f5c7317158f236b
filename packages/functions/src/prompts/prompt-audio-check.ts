import { BYTES_PER_SAMPLE, decodeSamples } from "@voxtrail/audio";
import { type AudioFormat, PromptAudioImplausible, type SynthesisStream } from "@voxtrail/core";

/** A prompt whose audio's RMS level is below this (dBFS) is near silent: not speech. */
export const MIN_PROMPT_LEVEL_DBFS = -50;

/** A prompt's audio must last at least this many milliseconds per word of its text. */
export const MIN_PROMPT_MS_PER_WORD = 50;

/** Full scale of a 16-bit sample. */
const FULL_SCALE = 32768;

/**
 * The RMS level and duration of raw audio as it streams: each chunk's samples (decoded to 16-bit
 * linear, whatever the encoding) go into a running sum of squares and a sample count, so nothing
 * is kept but those and at most one sample's bytes split across chunks.
 *
 * @example
 * const level = new AudioLevel({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 });
 * for await (const chunk of stream) level.add(chunk);
 * level.dbfs; // e.g. -21.4
 * level.durationMs; // e.g. 1830
 */
export class AudioLevel {
  #sumOfSquares = 0;
  #samples = 0;
  #partial: Uint8Array = new Uint8Array(0);

  constructor(private readonly format: AudioFormat) {}

  /** Adds a chunk of audio in the format; a sample split across chunks is counted once whole. */
  add(chunk: Uint8Array): void {
    const width = BYTES_PER_SAMPLE[this.format.encoding];
    let bytes = chunk;
    if (this.#partial.byteLength > 0) {
      bytes = new Uint8Array(this.#partial.byteLength + chunk.byteLength);
      bytes.set(this.#partial);
      bytes.set(chunk, this.#partial.byteLength);
    }
    const whole = bytes.byteLength - (bytes.byteLength % width);
    this.#partial = bytes.slice(whole);
    for (const sample of decodeSamples(bytes.subarray(0, whole), this.format.encoding)) {
      const scaled = sample / FULL_SCALE;
      this.#sumOfSquares += scaled * scaled;
    }
    this.#samples += whole / width;
  }

  /** The RMS level in dBFS; `-Infinity` for digital silence or no audio at all. */
  get dbfs(): number {
    if (this.#samples === 0 || this.#sumOfSquares === 0) return Number.NEGATIVE_INFINITY;
    return 20 * Math.log10(Math.sqrt(this.#sumOfSquares / this.#samples));
  }

  /** The audio's duration so far, in milliseconds. */
  get durationMs(): number {
    return (this.#samples / this.format.channels / this.format.sampleRate) * 1000;
  }
}

/**
 * The words of a prompt's text: runs of characters between white space (a text without spaces,
 * e.g. Japanese, is one word).
 *
 * @example
 * wordCount("Press 1 for sales."); // 4
 */
export function wordCount(text: string): number {
  return text.split(/\s+/u).filter((word) => word !== "").length;
}

/**
 * `PromptAudioImplausible` when audio of this level and duration cannot be `words` words of
 * speech: shorter than {@link MIN_PROMPT_MS_PER_WORD} per word, or quieter than
 * {@link MIN_PROMPT_LEVEL_DBFS}; `undefined` when it can. The message gives the measure and the
 * threshold only.
 *
 * @example
 * implausibleAudio({ dbfs: -80, durationMs: 185 }, 3)?.message;
 * // "the synthesized audio is near silent: its RMS level is -80.0 dBFS, below the -50 dBFS ..."
 */
export function implausibleAudio(
  measured: { dbfs: number; durationMs: number },
  words: number,
): PromptAudioImplausible | undefined {
  const minMs = words * MIN_PROMPT_MS_PER_WORD;
  if (measured.durationMs < minMs) {
    return new PromptAudioImplausible(
      `the synthesized audio lasts ${Math.round(measured.durationMs)} ms, shorter than the ${minMs} ms ` +
        `its ${words} word(s) need at least (${MIN_PROMPT_MS_PER_WORD} ms per word): the synthesizer ` +
        `did not speak the text; check the row's language and voice`,
    );
  }
  if (measured.dbfs < MIN_PROMPT_LEVEL_DBFS) {
    const level = Number.isFinite(measured.dbfs) ? `${measured.dbfs.toFixed(1)} dBFS` : "silence";
    return new PromptAudioImplausible(
      `the synthesized audio is near silent: its RMS level is ${level}, below the ` +
        `${MIN_PROMPT_LEVEL_DBFS} dBFS threshold: the synthesizer did not speak the text; check the ` +
        `row's language and voice`,
    );
  }
  return undefined;
}

/**
 * The synthesis stream `stream`, its audio measured as it passes through ({@link AudioLevel}):
 * once the stream ends, iteration throws `PromptAudioImplausible` instead of ending when the audio
 * cannot be `text` spoken ({@link implausibleAudio}), so whatever stores it stores nothing.
 * `timings()` and `delivery()` are the stream's.
 *
 * @example
 * const checked = checkedPromptAudio(stream, format, row.text);
 * await storeSynthesis({ ...target, stream: checked }); // rejects with PromptAudioImplausible
 */
export function checkedPromptAudio(
  stream: SynthesisStream,
  format: AudioFormat,
  text: string,
): SynthesisStream {
  const words = wordCount(text);
  const delivery = stream.delivery?.bind(stream);
  return {
    async *[Symbol.asyncIterator]() {
      const level = new AudioLevel(format);
      for await (const chunk of stream) {
        level.add(chunk);
        yield chunk;
      }
      const implausible = implausibleAudio(level, words);
      if (implausible) throw implausible;
    },
    timings: () => stream.timings(),
    ...(delivery ? { delivery } : {}),
  };
}
