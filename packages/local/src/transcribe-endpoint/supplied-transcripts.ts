import { decodeMono16 } from "@voxtrail/audio";
import {
  LOCAL_BOUNDARY,
  type Processor,
  quoteLanguage,
  type Transcriber,
  TranscriberLanguageUnsupported,
  type Transcript,
} from "@voxtrail/core";

/**
 * A transcriber for tests of the wiring in a language no embedded recogniser here hears: it hears
 * nothing, and answers each language with the transcript the test supplied for it, labelled as
 * such in lineage (provider `supplied-transcript`), with its words spread evenly over the audio and
 * no confidence (no recogniser gave one). A language it has no transcript for is
 * `TranscriberLanguageUnsupported`, or goes to `otherwise` when given.
 *
 * @example
 * const transcriber = new SuppliedTranscripts({ "es-US": "Hola, soy María ..." }, new PocketsphinxTranscriber());
 */
export class SuppliedTranscripts implements Transcriber {
  readonly processor: Processor = {
    provider: "supplied-transcript",
    model: "a transcript supplied by the test; no recogniser heard the audio",
    version: "1",
    boundary: LOCAL_BOUNDARY,
  };

  constructor(
    private readonly byLanguage: Readonly<Record<string, string>>,
    private readonly otherwise?: Transcriber,
  ) {}

  async transcribe(wav16k: Uint8Array, options: { language: string; signal?: AbortSignal; tmpDir?: string }) {
    const text = this.byLanguage[options.language];
    if (text === undefined) {
      if (this.otherwise) return this.otherwise.transcribe(wav16k, options);
      throw new TranscriberLanguageUnsupported(
        `no transcript was supplied for ${quoteLanguage(options.language)}`,
      );
    }
    const { samples, sampleRate } = decodeMono16(wav16k);
    const audioMs = (samples.length * 1000) / sampleRate;
    const words = text.split(/\s+/).filter((word) => word !== "");
    const step = words.length > 0 ? audioMs / words.length : 0;
    const transcript: Transcript = {
      text,
      words: words.map((word, index) => ({
        word,
        startMs: Math.round(index * step),
        endMs: Math.round((index + 1) * step),
      })),
      language: options.language,
      audioMs,
      processor: this.processor,
    };
    return transcript;
  }
}
