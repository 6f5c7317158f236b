import { writeWav } from "@voxtrail/audio";
import { SimulatedTranscriber } from "@voxtrail/providers";

/**
 * Words a second the simulated Sonic engine speaks: 150 words a minute, a usual pace for read
 * speech, so a reply's silence lasts about as long as its speech would.
 */
export const SIMULATED_WORDS_PER_SECOND = 2.5;

/** The sample rate of the simulated engine's WAVs (flite's `slt` voice's). */
const SIMULATED_SAMPLE_RATE = 16_000;

/** How every record made with a simulated engine names it: model and version say `simulated`. */
export const SIMULATED_LABEL = "simulated";

/**
 * A simulated speech engine for the local Sonic endpoint (its `engine` option): for each sentence,
 * a WAV of silence as long as the sentence would take to say at {@link SIMULATED_WORDS_PER_SECOND}.
 * It costs next to no CPU, so a load run measures the pipeline and its quotas, not flite; the
 * endpoint still paces the stream by its `generationTime`, on the virtual clock.
 *
 * @example
 * await startSonicEndpoint({ engine: new SimulatedSpeechEngine(), capacity, generationTime });
 */
export class SimulatedSpeechEngine {
  /** Seconds of audio made so far: the generation work a load run's endpoint did. */
  audioSeconds = 0;

  /** A WAV of silence lasting as long as `text` would take to say. */
  async synthesizeWav(text: string): Promise<Uint8Array> {
    const words = text.split(/\s+/).filter((word) => word !== "").length;
    const samples = Math.max(1, Math.round((words / SIMULATED_WORDS_PER_SECOND) * SIMULATED_SAMPLE_RATE));
    this.audioSeconds += samples / SIMULATED_SAMPLE_RATE;
    const format = { encoding: "pcm_s16le", sampleRate: SIMULATED_SAMPLE_RATE, channels: 1 } as const;
    return writeWav(format, new Uint8Array(samples * 2));
  }
}

/**
 * The recogniser behind the Transcribe stand-in in a load run: providers' `SimulatedTranscriber`
 * (hears nothing, returns one fixed transcript), whose processor already says `simulated`.
 */
export function simulatedRecogniser(): SimulatedTranscriber {
  return new SimulatedTranscriber();
}
