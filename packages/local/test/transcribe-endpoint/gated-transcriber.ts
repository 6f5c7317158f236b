import type { Transcriber, Transcript } from "@voxtrail/core";

/**
 * A recogniser stand-in for quota tests: each call waits until the test opens the gate, then
 * answers a fixed one-word transcript, so a test decides when each job's recognition ends.
 *
 * @example
 * const gate = new GatedTranscriber();
 * await startTranscribeEndpoint({ store, transcriber: gate });
 * gate.open(); // every waiting call answers
 */
export class GatedTranscriber implements Transcriber {
  readonly processor = {
    provider: "gated-test-transcriber",
    model: "fixed",
    version: "test",
    boundary: { kind: "local" as const },
  };
  readonly #waiting: Array<() => void> = [];
  #calls = 0;

  /** Calls made so far. */
  get calls(): number {
    return this.#calls;
  }

  /** Calls waiting for the gate. */
  get waiting(): number {
    return this.#waiting.length;
  }

  transcribe(): Promise<Transcript> {
    this.#calls += 1;
    return new Promise((resolve) => {
      this.#waiting.push(() =>
        resolve({
          text: "hello",
          words: [{ word: "hello", startMs: 0, endMs: 400, confidence: 1 }],
          language: "en-US",
          audioMs: 400,
          processor: this.processor,
        }),
      );
    });
  }

  /** Lets every waiting call answer. */
  open(): void {
    for (const answer of this.#waiting.splice(0)) answer();
  }
}
