import { decodeMono16, encodeSamples, resample } from "@voxtrail/audio";
import type { AudioEncoding } from "@voxtrail/core";
import type { FliteEngine, FliteVoice } from "../flite/flite-engine";
import { splitSentences } from "./sentences";

/** What {@link sentenceAudio} speaks, and in which raw format. */
export interface SentenceAudioRequest {
  transcript: string;
  voice: FliteVoice;
  encoding: AudioEncoding;
  sampleRate: number;
}

/**
 * The transcript's audio, one sentence at a time ({@link splitSentences}): each sentence spoken by
 * flite, resampled and encoded on its own, so the same transcript always gives the same bytes. The
 * next sentence is already rendering while the caller handles the one yielded; a caller that stops
 * early leaves at most that one render behind.
 *
 * @throws whatever the engine throws for a sentence, when that sentence is reached.
 * @example
 * for await (const audio of sentenceAudio(engine, { transcript, voice: "slt", encoding: "pcm_mulaw", sampleRate: 8000 })) {
 *   send(audio);
 * }
 */
export async function* sentenceAudio(
  engine: Pick<FliteEngine, "synthesizeWav">,
  request: SentenceAudioRequest,
): AsyncGenerator<Uint8Array, void, undefined> {
  const sentences = splitSentences(request.transcript);
  const render = (index: number): Promise<Uint8Array> | undefined => {
    const sentence = sentences[index];
    if (sentence === undefined) return undefined;
    const wav = engine.synthesizeWav(sentence, request.voice);
    // Awaited when its turn comes; one left behind by a caller that stopped early fails nobody.
    wav.catch(() => undefined);
    return wav;
  };
  let next = render(0);
  for (let index = 1; next !== undefined; index++) {
    const wav = await next;
    next = render(index);
    const { samples, sampleRate } = decodeMono16(wav);
    yield encodeSamples(resample(samples, sampleRate, request.sampleRate), request.encoding);
  }
}
