import { parseWav } from "@voxtrail/audio";
import { LOCAL_BOUNDARY, type Processor, type Transcriber, type Transcript } from "@voxtrail/core";

/** What the simulated transcriber "hears" in every voicemail, whatever its audio. */
export const SIMULATED_TRANSCRIPT_TEXT =
  "Hi this is Maria calling about order four two seven one, it arrived damaged, call me back";

/**
 * A simulated transcriber: it hears no audio and answers every voicemail with
 * {@link SIMULATED_TRANSCRIPT_TEXT}, its words spread evenly over the audio's duration. It runs the
 * pipeline around transcription (claims, lineage, reports, reasoning, synthesis) without a
 * recogniser's cost, for fast tests and load runs; its processor says `simulated` wherever it is
 * recorded, so no figure it took part in passes for a real engine's.
 *
 * @example
 * // voxtrail run --transcriber simulated calls/
 * const transcript = await new SimulatedTranscriber().transcribe(wav16k, { language: "en-US" });
 */
export class SimulatedTranscriber implements Transcriber {
  readonly processor: Processor = {
    provider: "simulated",
    model: "fixed transcript (simulated: hears no audio)",
    version: "1",
    boundary: LOCAL_BOUNDARY,
  };

  async transcribe(wav16k: Uint8Array, options: { language: string }): Promise<Transcript> {
    const { durationMs } = parseWav(wav16k);
    const words = SIMULATED_TRANSCRIPT_TEXT.split(" ");
    const wordMs = durationMs / words.length;
    return {
      text: SIMULATED_TRANSCRIPT_TEXT,
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
