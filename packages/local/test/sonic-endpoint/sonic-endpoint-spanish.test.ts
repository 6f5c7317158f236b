import { decodeSamples } from "@voxtrail/audio";
import type { AudioFormat } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spanishSpeech } from "../../src/espeak/spanish-speech";
import { localSonicSynthesizer } from "../../src/local-dependencies";
import { type StartedSonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";

const TELEPHONY: AudioFormat = { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 };
const SPANISH = "Gracias por llamar. Para ventas, marque uno.";

let endpoint: StartedSonicEndpoint;
const spoken: string[] = [];

beforeAll(async () => {
  const espeak = spanishSpeech();
  endpoint = await startSonicEndpoint({
    spanishEngine: {
      synthesizeWav: (text: string) => {
        spoken.push(text);
        return espeak.synthesizeWav(text);
      },
    },
  });
});
afterAll(() => endpoint.close());

async function audioOf(language: string, text = SPANISH): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of localSonicSynthesizer(endpoint).synthesize({
    text,
    language,
    format: TELEPHONY,
  })) {
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

describe("the local Sonic endpoint in Spanish", () => {
  test("speaks language es with espeak-ng's Latin American voice, sentence by sentence, at the rate asked", async () => {
    spoken.length = 0;
    const audio = await audioOf("es");
    expect(spoken).toEqual(["Gracias por llamar.", "Para ventas, marque uno."]);
    const samples = decodeSamples(audio, "pcm_mulaw");
    // Over a second of 8 kHz speech, not silence.
    expect(samples.length).toBeGreaterThan(8000);
    expect(Math.max(...samples.map(Math.abs))).toBeGreaterThan(2000);
  }, 60_000);

  test("English stays flite's: espeak-ng is not asked", async () => {
    spoken.length = 0;
    await audioOf("en", "Thanks for calling.");
    expect(spoken).toEqual([]);
  }, 60_000);

  test("declares English and Spanish, and labels Spanish as espeak-ng, not flite and not Sonic", () => {
    const synthesizer = localSonicSynthesizer(endpoint);
    expect(synthesizer.languages).toEqual(["en", "es"]);
    expect(synthesizer.processorFor?.("es").model).toBe(
      "espeak-ng (es-419) behind Sonic's SageMaker wire format; not Sonic",
    );
    expect(synthesizer.processorFor?.("en")).toBe(synthesizer.processor);
  });

  test("refuses another language rather than speaking it in English", async () => {
    await expect(audioOf("fr")).rejects.toMatchObject({ name: "SynthesisRejected" });
  }, 60_000);
});
