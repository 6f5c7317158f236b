import { setTimeout as sleep } from "node:timers/promises";

/**
 * Delays the local Sonic endpoint can inject, to test what the client measures. Every delay is
 * measured on the endpoint's monotonic clock.
 */
export interface SonicEndpointFaults {
  /**
   * The first audio leaves no earlier than this many milliseconds after the request was read (or as
   * soon as flite is done, when it takes longer). The response headers still go out at once, and so
   * does a first `PayloadPart` holding the opening bytes of the first `chunk` event, up to where its
   * audio begins ({@link FIRST_CHUNK_OPENING}): the response has visibly started (the SDK's `send()`
   * resolves at the first event-stream message), but no audio arrives until the delay is over.
   */
  firstByteDelayMs?: number;
  /** Wait this long between consecutive `chunk` events (pacing). */
  interChunkDelayMs?: number;
  /** After the `afterChunk`-th chunk event (1-based), wait a further `ms` before the next one. */
  stall?: { afterChunk: number; ms: number };
}

/** Throws a `RangeError` naming the first fault setting that is not a usable delay. */
export function checkFaults(faults: SonicEndpointFaults): void {
  const delays: Array<[string, number | undefined]> = [
    ["firstByteDelayMs", faults.firstByteDelayMs],
    ["interChunkDelayMs", faults.interChunkDelayMs],
    ["stall.ms", faults.stall?.ms],
  ];
  for (const [name, ms] of delays) {
    if (ms !== undefined && !(Number.isFinite(ms) && ms >= 0)) {
      throw new RangeError(`faults.${name} must be a non-negative number of milliseconds`);
    }
  }
  const afterChunk = faults.stall?.afterChunk;
  if (afterChunk !== undefined && !(Number.isInteger(afterChunk) && afterChunk >= 1)) {
    throw new RangeError("faults.stall.afterChunk must be a positive integer");
  }
}

/** How every `chunk` event's JSON begins, up to its audio: what goes out early when audio is delayed. */
export const FIRST_CHUNK_OPENING = '{"type":"chunk","data":"';

/** Waits out the pacing and any stall due after chunk number `sent` (1-based). */
export async function afterChunk(faults: SonicEndpointFaults, sent: number): Promise<void> {
  const ms = (faults.interChunkDelayMs ?? 0) + (faults.stall?.afterChunk === sent ? faults.stall.ms : 0);
  if (ms > 0) await sleep(ms);
}

/** Waits until `firstByteDelayMs` after `receivedAt` (monotonic milliseconds). */
export async function untilFirstAudio(faults: SonicEndpointFaults, receivedAt: number): Promise<void> {
  if (faults.firstByteDelayMs === undefined) return;
  const ms = receivedAt + faults.firstByteDelayMs - performance.now();
  if (ms > 0) await sleep(ms);
}
