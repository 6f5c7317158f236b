import { encodeSamples } from "@voxtrail/audio";
import { LOCAL_BOUNDARY, type Processor, type SynthesisRequest, type Synthesizer } from "@voxtrail/core";
import { TimedSynthesisStream } from "@voxtrail/providers";

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
