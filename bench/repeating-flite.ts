import { decodeMono16, encodeSamples, writeWav } from "@voxtrail/audio";
import { FliteEngine } from "@voxtrail/local";

/**
 * flite, rendered once: speaks one sentence with flite, then answers any text made of that sentence
 * repeated N times with the rendered audio repeated N times. A 30-minute reply then costs a second
 * of flite instead of many minutes, and the endpoint still streams every byte of it through
 * Sonic's wire format. Any other text is refused.
 *
 * @example
 * const engine = new RepeatingFlite("Thanks for calling. ");
 * const seconds = await engine.prerender();
 * const endpoint = await startSonicEndpoint({ engine });
 */
export class RepeatingFlite extends FliteEngine {
  #samples: Int16Array | undefined;
  #sampleRate = 0;

  constructor(readonly sentence: string) {
    super();
  }

  /** Renders the sentence; resolves to its duration in seconds. */
  async prerender(): Promise<number> {
    const decoded = decodeMono16(await super.synthesizeWav(this.sentence.trim(), "slt"));
    this.#samples = decoded.samples;
    this.#sampleRate = decoded.sampleRate;
    return decoded.samples.length / decoded.sampleRate;
  }

  /** The text for about `seconds` of speech: the sentence repeated. */
  textFor(seconds: number): string {
    if (!this.#samples) throw new Error("prerender() first");
    const repeats = Math.max(1, Math.round((seconds * this.#sampleRate) / this.#samples.length));
    return this.sentence.repeat(repeats).trim();
  }

  override async synthesizeWav(text: string): Promise<Uint8Array> {
    const samples = this.#samples;
    const repeats = text.split(this.sentence.trim()).length - 1;
    if (!samples || repeats === 0) throw new Error("only the prerendered sentence, repeated, is available");
    const all = new Int16Array(samples.length * repeats);
    for (let i = 0; i < repeats; i++) all.set(samples, i * samples.length);
    const format = { encoding: "pcm_s16le", sampleRate: this.#sampleRate, channels: 1 } as const;
    return writeWav(format, encodeSamples(all, "pcm_s16le"));
  }
}
