import { encodeSamples, parseWav } from "@voxtrail/audio";
import {
  LOCAL_BOUNDARY,
  type Processor,
  type SynthesisRequest,
  type Synthesizer,
  type Transcriber,
  type Transcript,
} from "@voxtrail/core";
import { TimedSynthesisStream } from "@voxtrail/providers";

/** What the stub transcriber hears in every voicemail, whatever its audio. */
export const STUB_TRANSCRIPT_TEXT =
  "Hi this is Maria calling about order four two seven one, it arrived damaged, call me back";

/**
 * A transcriber that answers every voicemail with {@link STUB_TRANSCRIPT_TEXT}, its words spread
 * evenly over the audio's duration: the pipeline around transcription, without pocketsphinx's cost.
 */
export class FixedTranscriber implements Transcriber {
  readonly processor: Processor = {
    provider: "stub",
    model: "fixed-transcript (test stub)",
    version: "1",
    boundary: LOCAL_BOUNDARY,
  };

  async transcribe(wav16k: Uint8Array, options: { language: string }): Promise<Transcript> {
    const { durationMs } = parseWav(wav16k);
    const words = STUB_TRANSCRIPT_TEXT.split(" ");
    const wordMs = durationMs / words.length;
    return {
      text: STUB_TRANSCRIPT_TEXT,
      words: words.map((word, index) => ({
        word: word.toLowerCase().replace(/[^a-z]/g, ""),
        startMs: index * wordMs,
        endMs: (index + 1) * wordMs,
      })),
      language: options.language,
      audioMs: durationMs,
      processor: this.processor,
    };
  }
}

/** How much audio {@link SilenceSynthesizer} streams per request. */
const SILENCE_MS = 100;

/**
 * A synthesizer that streams {@link SILENCE_MS} of silence in the requested format, in two halves,
 * with the timings a real stream reports: the pipeline around synthesis, without an endpoint.
 */
export class SilenceSynthesizer implements Synthesizer {
  readonly processor: Processor = {
    provider: "stub",
    model: "silence (test stub)",
    version: "1",
    boundary: LOCAL_BOUNDARY,
  };

  synthesize(request: SynthesisRequest): TimedSynthesisStream {
    return new SilenceStream(request);
  }
}

class SilenceStream extends TimedSynthesisStream {
  protected async *run(): AsyncGenerator<Uint8Array> {
    const { encoding, sampleRate, channels } = this.request.format;
    const halfFrames = Math.round((sampleRate * SILENCE_MS) / 2000);
    const half = encodeSamples(new Int16Array(halfFrames * channels), encoding);
    this.timer.requestSent();
    for (const chunk of [half, half]) {
      this.timer.chunk(chunk.byteLength);
      yield chunk;
    }
    this.timer.done();
  }
}
