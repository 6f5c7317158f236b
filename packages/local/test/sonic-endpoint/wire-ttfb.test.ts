import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { writeWav } from "@voxtrail/audio";
import type { Timing } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type SonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";
import { invoke, localClient, sonicBody } from "./helpers";

// Time to first audio on the wire, in a fresh process (issue 42). `synthesize.ttfb` starts when the
// synthesizer calls the SDK's send(); in a fresh process the first call also pays the client's
// set-up (loading, credentials, signing, the connection), so a stand-in that answers in 300 ms was
// recorded at 345 ms. `synthesize.wireTtfb` starts when the request's first byte was written to
// its socket, and `synthesize.clientSetup` is what came before; the two add up to the ttfb.
//
// The child (wire-ttfb-child.ts) is a fresh node process whose SageMaker Runtime client makes its
// first call here: the first voicemail of a fresh `voxtrail run`. The endpoint runs in this process,
// with a speech engine that answers at once (silence), so that only the injected delay separates
// the request from its first audio.

const FIRST_AUDIO_MS = 300;
/** The bound: the on-the-wire ttfb is within this of the first audio as the endpoint sent it. */
const TOLERANCE_MS = 5;
const CHILD = fileURLToPath(new URL("./wire-ttfb-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
/** Fresh processes, and calls in each (the first on a new connection, the next on the kept-alive one). */
const PROCESSES = 3;
const CALLS = 2;

/** Speaks every sentence as 250 ms of 16 kHz silence, at once. */
const silence = {
  async synthesizeWav(): Promise<Uint8Array> {
    return writeWav({ encoding: "pcm_s16le", sampleRate: 16_000, channels: 1 }, new Uint8Array(8_000));
  },
};

/** The system's monotonic clock (`process.hrtime`, ms): the child's is the same clock. */
const monotonicNow = () => Number(process.hrtime.bigint()) / 1e6;

let endpoint: SonicEndpoint;
const arrivals: number[] = [];
const firstAudios: number[] = [];

beforeAll(async () => {
  endpoint = await startSonicEndpoint({
    engine: silence,
    faults: { firstByteDelayMs: FIRST_AUDIO_MS },
    onRequest: () => arrivals.push(monotonicNow()),
    onFirstAudio: () => firstAudios.push(monotonicNow()),
  });
  // The endpoint's own first request runs its code cold and sends late (by 5 to 20 ms here): warm
  // it, as SageMaker's is, so that only the child's first call is a first.
  const client = localClient(endpoint.url);
  try {
    for await (const _ of (await invoke(client, sonicBody({ transcript: "Warming up." }))).Body ?? []) {
      // drain
    }
  } finally {
    client.destroy();
  }
  arrivals.length = 0;
  firstAudios.length = 0;
});

afterAll(async () => {
  await endpoint?.close();
});

/** The figures each call gave, printed as they come, so that a failure shows them too. */
function report(line: string): void {
  process.stdout.write(`wire ttfb: ${line}\n`);
}

interface ChildCall {
  firstChunkAtMs: number;
  loopDelayMs: number;
  timings: Timing[];
}

async function freshProcess(): Promise<ChildCall[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", CHILD, endpoint.url, String(CALLS)],
    { cwd: ROOT, timeout: 60_000 },
  );
  return JSON.parse(stdout) as ChildCall[];
}

describe("synthesize.wireTtfb: time to first audio from the request's first byte on the wire", () => {
  test("in a fresh process, first call included, it is the endpoint's 300 ms; the client's set-up is beside it", async () => {
    /** Per call position (first, kept-alive), how many calls came within the tolerance. */
    const within = Array.from({ length: CALLS }, () => 0);
    for (let run = 0; run < PROCESSES; run++) {
      const calls = await freshProcess();
      expect(calls).toHaveLength(CALLS);
      for (const [index, call] of calls.entries()) {
        const byName = Object.fromEntries(call.timings.map((timing) => [timing.name, timing]));
        expect(byName).toMatchObject({
          "synthesize.ttfb": { startEvent: "request.sent", endEvent: "audio.firstChunk" },
          "synthesize.clientSetup": { startEvent: "request.sent", endEvent: "request.firstByteWritten" },
          "synthesize.wireTtfb": { startEvent: "request.firstByteWritten", endEvent: "audio.firstChunk" },
        });
        const ttfb = byName["synthesize.ttfb"]?.ms ?? Number.NaN;
        const setup = byName["synthesize.clientSetup"]?.ms ?? Number.NaN;
        const wire = byName["synthesize.wireTtfb"]?.ms ?? Number.NaN;
        // synthesize.ttfb keeps its definition: the set-up and the wire add up to it.
        expect(ttfb).toBeGreaterThanOrEqual(wire);
        expect(Math.abs(setup + wire - ttfb)).toBeLessThanOrEqual(0.002);

        // When, on the endpoint's side, the request arrived and its first audio went out, from when
        // the child's first byte was written: its first chunk's arrival less the wire ttfb (a
        // little later than the mark itself, by the first part's decoding: which makes the
        // endpoint's lateness below, if anything, smaller than it was).
        const writtenAt = call.firstChunkAtMs - wire;
        const arrival = (arrivals.shift() ?? Number.NaN) - writtenAt;
        const firstAudio = (firstAudios.shift() ?? Number.NaN) - writtenAt;
        /** How much later than due the endpoint's first audio went out (a loaded machine). */
        const endpointLate = Math.max(0, firstAudio - FIRST_AUDIO_MS);
        report(
          `process ${run + 1} call ${index + 1}: ttfb ${ttfb} ms = set-up ${setup} + wire ${wire}; endpoint: request arrived +${arrival.toFixed(1)} ms, first audio out +${firstAudio.toFixed(1)} ms after the first byte written; the child's event loop held up ${call.loopDelayMs.toFixed(1)} ms meanwhile`,
        );
        // The first byte is marked as it was written: not after the request reached the endpoint.
        // `writtenAt` is taken from the chunk's arrival in the child's loop, which comes after the
        // wire ttfb's own mark by up to the loop's measured hold-up (2.2 ms once under a full test
        // run, with 3.2 ms measured), so the arrival may seem that much earlier; a mark taken
        // after the request arrived would still put it later by the whole difference.
        expect(arrival).toBeGreaterThanOrEqual(-1 - call.loopDelayMs);
        // The endpoint holds its first audio FIRST_AUDIO_MS from the request's arrival, so the
        // recorded wire ttfb cannot fall short of it by more than the tolerance ...
        expect(wire).toBeGreaterThanOrEqual(FIRST_AUDIO_MS - TOLERANCE_MS);
        // ... nor exceed it by more, on a quiet machine. A loaded one (other jobs on the cores)
        // makes the endpoint send late, or the child read late: both are measured, and allowed.
        if (wire - FIRST_AUDIO_MS <= TOLERANCE_MS + endpointLate + call.loopDelayMs)
          within[index] = (within[index] ?? 0) + 1;
      }
    }
    // Not every call: under a full test run the chunk can wait between the endpoint's mark and the
    // child's read longer than either side's measured lateness (12.8 ms once, against 11.3 allowed,
    // with each side on time by its own measure). A mark that counted the client's set-up would
    // put every first call over, by its 10 to 90 ms; so in each position at least one call of the
    // fresh processes must come within the tolerance.
    for (const [position, count] of within.entries()) {
      expect(count, `calls at position ${position + 1} within the tolerance`).toBeGreaterThan(0);
    }
  }, 180_000);
});
