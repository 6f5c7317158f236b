import { syncBuiltinESMExports } from "node:module";
import timers from "node:timers";
import { setImmediate as realImmediate } from "node:timers/promises";

/** The real `setTimeout`, taken before the clock replaces it (node:timers/promises follows the patch). */
const realSetTimeout = timers.setTimeout;

/** Resolves after `ms` real milliseconds. */
function realSleep(ms: number): Promise<void> {
  return new Promise((resolve) => realSetTimeout(resolve, ms));
}

import { install } from "@sinonjs/fake-timers";

type InstalledClock = ReturnType<typeof install>;

/**
 * Resource types `process.getActiveResourcesInfo()` lists that are not real work in progress:
 * real timers (Node's own, unref'd: the HTTP servers' connection checks), immediates, listening
 * servers, the terminal, stdio and IPC pipes, signal handlers and worker message ports. Anything
 * else (`FSReqCallback`, `FSReqPromise`, `FileHandle`, TCP sockets, DNS, zlib, crypto jobs) is I/O
 * whose completion the clock must wait for.
 */
const IDLE_RESOURCES = new Set([
  "Timeout",
  "Immediate",
  "TCPServerWrap",
  "TTYWrap",
  "PipeWrap",
  "SignalWrap",
  "MessagePort",
]);

/** Real event-loop turns in a row that must see no I/O pending before the clock may move. */
const QUIET_TURNS = 3;

/**
 * How far past the next timer one advance goes: every timer due within it fires in the same
 * advance (each at its own time, in order), so the handlers they start run side by side and
 * their disk I/O overlaps, instead of one instant's I/O after another's. The work those handlers
 * do after their first await sees the advance's end, so simulated times are late by at most this
 * much: 20 ms, against retry waits of seconds and jobs of tens of seconds. At 1,000 voicemails it
 * cut the clock's advances from 27,029 to 7,865 and the run's wall time from 198 s to 169 s, the
 * drain 266 s and 258 s (the jitter's spread between runs).
 */
const STEP_MS = 20;

/** How the virtual clock went: timers it fired and where virtual time ended. */
export interface VirtualClockStats {
  /** Times the clock moved to its next timer (firing it and any others due within `STEP_MS` of it). */
  advances: number;
  /** Virtual milliseconds that passed between `start` and `stop`. */
  elapsedMs: number;
  /** Real milliseconds spent waiting for I/O to settle before advancing. */
  settleWallMs: number;
}

/**
 * Virtual time for a load run: @sinonjs/fake-timers replaces `Date`, `setTimeout`/`clearTimeout`
 * and `setInterval`/`clearInterval` (never `setImmediate`, `process.nextTick` or
 * `queueMicrotask`, so promises, streams and Node's internals run as usual), and a drive loop
 * moves the clock to the next timer only when nothing real is pending: no I/O listed by
 * `process.getActiveResourcesInfo()` for {@link QUIET_TURNS} real `setImmediate` turns. So every
 * wait (retries' backoff, Task timeouts, a Transcribe job's run time, Sonic's generation pace,
 * autoscaling delays, EventBridge retries) costs no real time, and the handlers' real CPU and disk
 * time does not move the clock: while any handler's I/O is in flight, virtual time stands still.
 *
 * @example
 * const clock = VirtualClock.start();
 * try {
 *   await clock.drive(runLoad());
 * } finally {
 *   clock.stop();
 * }
 */
export class VirtualClock {
  readonly #startedAt: number;
  #advances = 0;
  #settleWallMs = 0;
  #stopped = false;

  private constructor(
    private readonly clock: InstalledClock,
    private readonly restoreTimersModule: () => void,
  ) {
    this.#startedAt = clock.now;
  }

  /** Installs the fake clock at the real time now. */
  static start(): VirtualClock {
    const clock = install({
      now: Date.now(),
      toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"],
      // The SDK's HTTP handler clears its unset timers (-1), which fake-timers takes for native ones.
      shouldClearNativeTimers: true,
      loopLimit: Number.MAX_SAFE_INTEGER,
    });
    // Modules that import `setTimeout` from `node:timers` (middy's early timeout, which bounds a
    // handler by its context's remaining time) get the fake one too, so a Lambda's deadline is
    // virtual on both sides.
    const real = { setTimeout: timers.setTimeout, clearTimeout: timers.clearTimeout };
    Object.assign(timers, { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout });
    syncBuiltinESMExports();
    return new VirtualClock(clock, () => {
      Object.assign(timers, real);
      syncBuiltinESMExports();
    });
  }

  /** Virtual milliseconds since {@link start}. */
  get elapsedMs(): number {
    return this.clock.now - this.#startedAt;
  }

  /**
   * Resolves (or rejects) as `work` does, advancing the clock timer by timer whenever nothing real
   * is pending. Rejects when the work is stuck: nothing pending, no timer left, and `work` unsettled.
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    done.catch(() => undefined);
    while (!settled) {
      await this.#quiet(() => settled);
      if (settled) break;
      if (this.clock.countTimers() === 0) {
        throw new Error("the load run is stuck: no I/O pending, no timer set, and work unfinished");
      }
      // The next timer, then every timer due within STEP_MS of it, so their handlers run together.
      this.clock.next();
      this.clock.tick(STEP_MS);
      this.#advances += 1;
    }
    return done;
  }

  /** The clock's figures so far. */
  stats(): VirtualClockStats {
    return { advances: this.#advances, elapsedMs: this.elapsedMs, settleWallMs: this.#settleWallMs };
  }

  /** Puts the real timers and `Date` back; calling it again does nothing. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.clock.uninstall();
    this.restoreTimersModule();
  }

  /** Resolves once {@link QUIET_TURNS} real turns in a row saw no I/O pending (or `stop` says so). */
  async #quiet(stop: () => boolean): Promise<void> {
    const began = performance.now();
    let quiet = 0;
    while (quiet < QUIET_TURNS && !stop()) {
      if (ioPending()) {
        // Let the event loop block in its poll phase for the I/O rather than spin on it.
        quiet = 0;
        await realSleep(1);
      } else {
        quiet += 1;
        await realImmediate();
      }
    }
    this.#settleWallMs += performance.now() - began;
  }
}

/** Whether any real I/O is in flight. */
export function ioPending(): boolean {
  return process.getActiveResourcesInfo().some((type) => !IDLE_RESOURCES.has(type));
}
