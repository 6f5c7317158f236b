import { randomUUID } from "node:crypto";
import type { WorkflowCallback } from "@voxtrail/core";

/** What every token minted here starts with: how a waiting Task finds its token in its payload. */
const TOKEN_PREFIX = "local-task-token-";

/** One task waiting on its token: how to end its wait, and when the wait gives up. */
interface Waiter {
  resolve(output: Record<string, unknown>): void;
  expiry: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The task tokens of `.waitForTaskToken` states run on this machine, as Step Functions keeps
 * them: each wait gets a fresh token (`$$.Task.Token`), {@link resume} ends the wait with its
 * output (`SendTaskSuccess`), and a token whose wait ended (resumed already, or its state's
 * `TimeoutSeconds` passed) is gone, as AWS answers `TaskTimedOut` then. Timers run on the global
 * clock (a fake one drives them in a load run) and never keep the process alive.
 *
 * @example
 * const tokens = new TaskTokens();
 * const token = tokens.mint();
 * const output = tokens.wait(token, 1_800_000);
 * await tokens.resume(token, { status: "COMPLETED" }); // "resumed"; `output` resolves with it
 */
export class TaskTokens implements WorkflowCallback {
  readonly #minted = new Set<string>();
  readonly #waiting = new Map<string, Waiter>();

  /** A new token, as the context object's `Task.Token` gives one each time a Task is entered. */
  mint(): string {
    const token = `${TOKEN_PREFIX}${randomUUID()}`;
    this.#minted.add(token);
    return token;
  }

  /** Whether `value` is a token minted here (a waiting Task looks for it in its payload). */
  isToken(value: unknown): value is string {
    return typeof value === "string" && this.#minted.has(value);
  }

  /**
   * Waits for `token`'s output; after `timeoutMs` the token is gone and the wait rejects with
   * `States.Timeout`, the error Step Functions fails a Task with when its `TimeoutSeconds` pass.
   * Begin the wait before anything can resume it.
   */
  wait(token: string, timeoutMs: number): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const expiry = setTimeout(() => {
        this.#forget(token);
        const timeout = new Error(`no task success for the token within ${timeoutMs} ms`);
        timeout.name = "States.Timeout";
        reject(timeout);
      }, timeoutMs);
      expiry.unref?.();
      this.#waiting.set(token, { resolve, expiry });
    });
  }

  async resume(taskToken: string, output: Record<string, unknown>): Promise<"resumed" | "gone"> {
    const waiter = this.#waiting.get(taskToken);
    if (waiter) {
      this.#forget(taskToken);
      waiter.resolve(output);
      return "resumed";
    }
    return "gone";
  }

  /** Ends the wait on `token` without an output: its Task failed otherwise; the token is gone. */
  release(token: string): void {
    this.#forget(token);
  }

  #forget(token: string): void {
    const waiter = this.#waiting.get(token);
    if (waiter?.expiry) clearTimeout(waiter.expiry);
    this.#waiting.delete(token);
    this.#minted.delete(token);
  }
}
