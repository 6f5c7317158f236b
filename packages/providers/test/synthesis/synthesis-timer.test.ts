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

  test("split at the wire: the client's set-up, then time to first audio on the wire; they add up to ttfb", () => {
    // request.sent 100; its first byte written at 145 (seen by a WireWatch); first audio at 445.
    const timer = new SynthesisTimer(clock(100, 445, 470));
    timer.requestSent();
    timer.requestWritten(145);
    timer.chunk(320, 445);
    timer.chunk(320, 455);
    timer.done();
    const byName = Object.fromEntries(timer.timings().map((timing) => [timing.name, timing]));
    expect(byName["synthesize.ttfb"]).toEqual({
      name: "synthesize.ttfb",
      startEvent: "request.sent",
      endEvent: "audio.firstChunk",
      ms: 345,
    });
    expect(byName["synthesize.clientSetup"]).toEqual({
      name: "synthesize.clientSetup",
      startEvent: "request.sent",
      endEvent: "request.firstByteWritten",
      ms: 45,
    });
    expect(byName["synthesize.wireTtfb"]).toEqual({
      name: "synthesize.wireTtfb",
      startEvent: "request.firstByteWritten",
      endEvent: "audio.firstChunk",
      ms: 300,
    });
  });

  test("no wire timings when the request was not seen on the wire, or before request.sent", () => {
    const unseen = new SynthesisTimer(clock(0, 10));
    unseen.requestSent();
    unseen.requestWritten(undefined);
    unseen.chunk(2, 10);
    expect(unseen.timings().map((timing) => timing.name)).toEqual(["synthesize.ttfb"]);
    const early = new SynthesisTimer(clock(0, 10));
    early.requestWritten(5);
    early.requestSent();
    early.chunk(2, 10);
    expect(early.timings().map((timing) => timing.name)).toEqual(["synthesize.ttfb"]);
    // A mark from before this request was sent (a connection another call opened) is not its own.
    const stale = new SynthesisTimer(clock(100, 400));
    stale.requestSent();
    stale.requestWritten(50);
    stale.chunk(2, 400);
    expect(stale.timings().map((timing) => timing.name)).toEqual(["synthesize.ttfb"]);
  });

  test("a request written but never answered with audio: its set-up alone", () => {
    const timer = new SynthesisTimer(clock(0));
    timer.requestSent();
    timer.requestWritten(12);
    expect(timer.timings().map((timing) => timing.name)).toEqual(["synthesize.clientSetup"]);
  });
});
