import { describe, expect, test } from "vitest";
import { SynthesisTimer } from "../../src/synthesis/synthesis-timer";

/** A clock that reads the times it is given, in order. */
function clock(...times: number[]): () => number {
  return () => {
    const time = times.shift();
    if (time === undefined) throw new Error("clock read too often");
    return time;
  };
}

describe("SynthesisTimer", () => {
  test("ttfb at the first chunk, total at done, the largest gap, and the delivery's stalls", () => {
    // request.sent 100, chunks at 130, 150, 450, 460; done at 470.
    const timer = new SynthesisTimer(clock(100, 130, 470));
    timer.requestSent();
    for (const arrivedAt of [130, 150, 450, 460]) timer.chunk(320, arrivedAt);
    timer.done();
    expect(timer.timings()).toEqual([
      { name: "synthesize.ttfb", startEvent: "request.sent", endEvent: "audio.firstChunk", ms: 30 },
      { name: "synthesize.total", startEvent: "request.sent", endEvent: "stream.done", ms: 370 },
      { name: "synthesize.maxGap", startEvent: "audio.chunk", endEvent: "audio.chunk.next", ms: 300 },
    ]);
    const format = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 } as const;
    expect(timer.audioMs(format)).toBe(40); // 1280 bytes = 640 samples at 16 kHz
    expect(timer.delivery(format, 250)).toEqual({
      chunks: 4,
      gapsMs: [20, 300, 10],
      stallThresholdMs: 250,
      stalls: [{ afterChunk: 2, ms: 300 }],
      totalMs: 370,
      audioMs: 40,
      rtf: 9.25,
    });
  });

  test("the largest gap of a stream longer than a call's arguments can hold (200,000 chunks)", () => {
    // 200,000 chunks of 20 ms is over an hour of audio; Math.max(...gaps) overflows the stack here.
    const timer = new SynthesisTimer(clock(0, 0));
    timer.requestSent();
    for (let i = 0; i < 200_000; i++) timer.chunk(640, i * 20 + (i >= 150_000 ? 700 : 0));
    expect(timer.timings().find((timing) => timing.name === "synthesize.maxGap")?.ms).toBe(720);
  });

  test("no ttfb without audio, no total without done, no max gap with one chunk", () => {
    const silent = new SynthesisTimer(clock(0));
    silent.requestSent();
    expect(silent.timings()).toEqual([]);
    const single = new SynthesisTimer(clock(0, 5));
    single.requestSent();
    single.chunk(2, 5);
    expect(single.timings().map((timing) => timing.name)).toEqual(["synthesize.ttfb"]);
  });
});
