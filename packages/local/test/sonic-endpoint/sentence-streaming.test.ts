import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FliteEngine, type FliteVoice } from "../../src/flite/flite-engine";
import { type SonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";
import {
  audioOf,
  eventsOf,
  fliteSentences,
  invoke,
  localClient,
  payloadParts,
  sentencesAudio,
  sonicBody,
} from "./helpers";

// The endpoint speaks one sentence at a time: the first sentence's audio goes out while the next
// one renders, and a sentence that fails ends the stream after the audio already sent.

const TRANSCRIPT = String(sonicBody().transcript);

/** flite whose second and later sentences wait until {@link open} is called. */
class GatedFlite extends FliteEngine {
  readonly asked: string[] = [];
  rendered = 0;
  #open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.#open = resolve;
  });

  open(): void {
    this.#open();
  }

  override async synthesizeWav(text: string, voice?: FliteVoice): Promise<Uint8Array> {
    this.asked.push(text);
    if (this.asked.length > 1) await this.#gate;
    const wav = await super.synthesizeWav(text, voice);
    this.rendered += 1;
    return wav;
  }
}

/** flite that fails on every sentence after the first. */
class FailingAfterFirst extends FliteEngine {
  #calls = 0;
  override synthesizeWav(text: string, voice?: FliteVoice): Promise<Uint8Array> {
    this.#calls += 1;
    return this.#calls === 1 ? super.synthesizeWav(text, voice) : Promise.reject(new Error("flite crashed"));
  }
}

const engine = new FliteEngine();
let sentences: Int16Array[];
const closers: Array<() => Promise<void>> = [];

async function endpointWith(other: FliteEngine): Promise<ReturnType<typeof localClient>> {
  const endpoint: SonicEndpoint = await startSonicEndpoint({ engine: other });
  const client = localClient(endpoint.url);
  closers.push(async () => {
    client.destroy();
    await endpoint.close();
  });
  return client;
}

beforeAll(async () => {
  sentences = await fliteSentences(engine, TRANSCRIPT, "slt");
});

afterAll(async () => {
  for (const close of closers) await close();
});

describe("the local Sonic endpoint, one sentence at a time", () => {
  test("sends the first sentence's audio before the second one is rendered", async () => {
    const gated = new GatedFlite();
    const client = await endpointWith(gated);
    const response = await invoke(client, sonicBody());
    const parts: Uint8Array[] = [];
    let beforeGate: Record<string, unknown>[] | undefined;
    for await (const event of response.Body ?? []) {
      if (event.PayloadPart?.Bytes) parts.push(event.PayloadPart.Bytes);
      // Every whole 20 ms chunk of the first sentence has arrived: the second has not been rendered.
      const chunks = eventsOf(parts).filter((each) => each.type === "chunk").length;
      if (beforeGate === undefined && chunks === Math.floor((sentences[0]?.length ?? 0) / 320)) {
        beforeGate = eventsOf(parts);
        expect(gated.asked).toHaveLength(2);
        expect(gated.rendered).toBe(1);
        gated.open();
      }
    }
    expect(gated.asked).toEqual(["Thanks for calling.", "We will ring you back tomorrow morning."]);
    expect(beforeGate?.length).toBeGreaterThan(10);
    const events = eventsOf(parts);
    expect(events.at(-1)?.type).toBe("done");
    expect(audioOf(events).equals(sentencesAudio(sentences, "pcm_s16le", 16000))).toBe(true);
  });

  test("a sentence that fails after audio went out ends the stream with a Sonic error event", async () => {
    const client = await endpointWith(new FailingAfterFirst());
    const events = eventsOf(await payloadParts(await invoke(client, sonicBody())));
    expect(events.at(-1)).toEqual({
      type: "error",
      status_code: 500,
      done: true,
      data: "synthesis failed",
      context_id: "ctx-1",
    });
    // The first sentence's whole chunks went out; its last part-chunk waited for the second's audio.
    const first = sentencesAudio(sentences.slice(0, 1), "pcm_s16le", 16000);
    const audio = audioOf(events);
    expect(audio.byteLength).toBe(first.byteLength - (first.byteLength % 640));
    expect(audio.equals(first.subarray(0, audio.byteLength))).toBe(true);
  });
});
