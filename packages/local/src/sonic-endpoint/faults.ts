import { setTimeout as sleep } from "node:timers/promises";

/**
 * Delays and failures the local Sonic endpoint can inject, to test what the client measures and how
 * it recovers. Every delay is measured on the endpoint's monotonic clock. Failures hit only the
 * first `requests` invocations (1 by default; counted from the endpoint's start), so a retry can
 * succeed.
 */
export interface SonicEndpointFaults {
  /**
   * The first audio leaves no earlier than this many milliseconds after the request arrived (or as
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
  /**
   * After the `afterChunk`-th chunk event (1-based), end the stream with a `ModelStreamError`
   * exception message, as SageMaker does when the model container fails mid-stream.
   */
  streamError?: { afterChunk: number; requests?: number };
  /**
   * Answer before any stream as SageMaker does when the container answers `originalStatus`:
   * HTTP 424 `ModelError` with `OriginalStatusCode` (429: no capacity; 422: rejected input).
   */
  modelError?: { originalStatus: 422 | 429; requests?: number };
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
  const counts: Array<[string, number | undefined]> = [
    ["stall.afterChunk", faults.stall?.afterChunk],
    ["streamError.afterChunk", faults.streamError?.afterChunk],
    ["streamError.requests", faults.streamError?.requests],
    ["modelError.requests", faults.modelError?.requests],
  ];
  for (const [name, count] of counts) {
    if (count !== undefined && !(Number.isInteger(count) && count >= 1)) {
      throw new RangeError(`faults.${name} must be a positive integer`);
    }
  }
  const status = faults.modelError?.originalStatus;
  if (status !== undefined && status !== 422 && status !== 429) {
    throw new RangeError("faults.modelError.originalStatus must be 422 or 429");
  }
}

/** Whether a failure limited to its first `requests` invocations (1 by default) hits invocation `n` (1-based). */
export function hits(failure: { requests?: number } | undefined, n: number): boolean {
  return failure !== undefined && n <= (failure.requests ?? 1);
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
