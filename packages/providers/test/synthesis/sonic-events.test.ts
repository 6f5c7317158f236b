import { SynthesisFailed } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { type SonicEvent, SonicEventDecoder } from "../../src/synthesis/sonic-events";

const encode = (text: string) => new TextEncoder().encode(text);

const CHUNK = {
  type: "chunk",
  data: Buffer.from([1, 2, 3, 250]).toString("base64"),
  done: false,
  step_time: 0.01,
};
const TIMESTAMPS = {
  type: "timestamps",
  word_timestamps: { words: ["Grüße", "naïve", "日本"], start: [0, 0.5, 1.25], end: [0.5, 1.25, 2] },
};
const DONE = { type: "done", done: true };
const STREAM = [CHUNK, TIMESTAMPS, { type: "phoneme_timestamps", phoneme_timestamps: {} }, DONE]
  .map((event) => `${JSON.stringify(event)}\n`)
  .join("");

const EXPECTED: SonicEvent[] = [
  { type: "chunk", audio: new Uint8Array([1, 2, 3, 250]) },
  {
    type: "timestamps",
    words: [
      { word: "Grüße", startMs: 0, endMs: 500 },
      { word: "naïve", startMs: 500, endMs: 1250 },
      { word: "日本", startMs: 1250, endMs: 2000 },
    ],
  },
  { type: "done" },
];

function decodeInParts(bytes: Uint8Array, partSize: number): SonicEvent[] {
  const decoder = new SonicEventDecoder();
  const events: SonicEvent[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += partSize) {
    events.push(...decoder.push(bytes.subarray(offset, offset + partSize)));
  }
  expect(decoder.pending).toBe(false);
  return events;
}

describe("SonicEventDecoder", () => {
  test("decodes several events packed in one part, skipping types it does not act on", () => {
    expect(decodeInParts(encode(STREAM), Number.MAX_SAFE_INTEGER)).toEqual(EXPECTED);
  });

  test.each([1, 2, 3, 5, 7, 64])(
    "reassembles events split into %i-byte parts, across multi-byte characters",
    (size) => {
      expect(decodeInParts(encode(STREAM), size)).toEqual(EXPECTED);
    },
  );

  test("a part cut inside a multi-byte character waits for the rest", () => {
    const bytes = encode(`${JSON.stringify(TIMESTAMPS)}\n`);
    const cut = bytes.indexOf(0xc3) + 1; // between the two bytes of "ü"
    const decoder = new SonicEventDecoder();
    expect(decoder.push(bytes.subarray(0, cut))).toEqual([]);
    expect(decoder.pending).toBe(true);
    expect(decoder.push(bytes.subarray(cut))).toEqual([EXPECTED[1]]);
  });

  test("reports an unfinished event as pending", () => {
    const decoder = new SonicEventDecoder();
    decoder.push(encode(`${JSON.stringify(CHUNK)}\n{"type":"do`));
    expect(decoder.pending).toBe(true);
  });

  test("reads the status code of an error event, never its text", () => {
    const decoder = new SonicEventDecoder();
    expect(decoder.push(encode('{"type":"error","status_code":429,"data":"secret text"}\n'))).toEqual([
      { type: "error", statusCode: 429 },
    ]);
    expect(decoder.push(encode('{"type":"error"}\n'))).toEqual([{ type: "error", statusCode: undefined }]);
  });

  test.each([
    ["a line that is not JSON", "not json\n", "Sonic response event is not valid JSON"],
    ["a JSON value that is not an object", "42\n", "Sonic response event is not a JSON object"],
    ["a chunk without data", '{"type":"chunk"}\n', "Sonic response event chunk is malformed"],
    [
      "timestamps with unequal arrays",
      '{"type":"timestamps","word_timestamps":{"words":["a"],"start":[],"end":[1]}}\n',
      "Sonic response event timestamps is malformed",
    ],
    [
      "timestamps without word_timestamps",
      '{"type":"timestamps"}\n',
      "Sonic response event timestamps is malformed",
    ],
  ])("rejects %s as SynthesisFailed", (_, line, message) => {
    const decoder = new SonicEventDecoder();
    expect(() => decoder.push(encode(line))).toThrow(new SynthesisFailed(message));
  });

  test("rejects bytes that are not UTF-8", () => {
    const decoder = new SonicEventDecoder();
    expect(() => decoder.push(new Uint8Array([0x7b, 0xff, 0x0a]))).toThrow(SynthesisFailed);
  });
});
