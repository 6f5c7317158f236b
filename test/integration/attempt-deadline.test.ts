import { createHash } from "node:crypto";
import {
  ActivityRecord,
  type ArtifactRef,
  type PromptRow,
  readJson,
  type SynthesisRequest,
  type Synthesizer,
} from "@voxtrail/core";
import { PROMPT_STAGE_DEFINITIONS, stageHandler } from "@voxtrail/functions/kernel";
import { localSonicSynthesizer, type SonicEndpoint, startSonicEndpoint } from "@voxtrail/local";
import { keys, promptKeys } from "@voxtrail/workflow";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";

/** The invocation may run this long; its attempt is given up 500 ms before the end. */
const INVOCATION_MS = 2000;
/** After its first chunk the endpoint holds the stream this long: far past the deadline. */
const STALL_MS = 6000;

/** How a synthesis stream the attempt started ended, seen from outside the provider. */
interface StreamEnd {
  chunks: number;
  at: number;
  error?: string;
}

/** The real SageMaker-client synthesizer, watched: when its stream ends, and how. */
function watched(inner: Synthesizer, ends: StreamEnd[]): Synthesizer {
  return {
    processor: inner.processor,
    synthesize: (request: SynthesisRequest) => {
      const stream = inner.synthesize(request);
      return {
        timings: () => stream.timings(),
        async *[Symbol.asyncIterator]() {
          let chunks = 0;
          try {
            for await (const chunk of stream) {
              chunks += 1;
              yield chunk;
            }
            ends.push({ chunks, at: Date.now() });
          } catch (error) {
            ends.push({ chunks, at: Date.now(), error: (error as Error).name });
            throw error;
          }
        },
      };
    },
  };
}

const row: PromptRow = {
  line: 2,
  id: "greeting",
  text: "Thank you for calling. Please hold while we connect you to the next available agent.",
  format: "telephony",
  rowHash: createHash("sha256").update("greeting").digest("hex"),
};

let endpoint: SonicEndpoint;

beforeAll(async () => {
  endpoint = await startSonicEndpoint({ faults: { stall: { afterChunk: 1, ms: STALL_MS } } });
});

afterAll(async () => {
  await endpoint.close();
});

describe("an attempt that outlives its invocation's deadline", () => {
  it("aborts the provider's stream at the deadline and writes nothing after it but its own record", async () => {
    const ends: StreamEnd[] = [];
    const { deps } = await testDependencies({ synthesizer: watched(localSonicSynthesizer(endpoint), ends) });
    const rows: ArtifactRef = {
      kind: "prompt-manifest",
      uri: deps.store.uri("prompts/pr-deadline/rows.jsonl"),
      key: "prompts/pr-deadline/rows.jsonl",
      sha256: "0".repeat(64),
      bytes: 0,
      contentType: "application/x-ndjson",
    };
    const deadline = Date.now() + INVOCATION_MS;
    const handler = stageHandler(PROMPT_STAGE_DEFINITIONS.synthesizePrompt, deps);

    const error = await handler(
      { jobId: "pr-deadline", rows, row },
      { ...(context as Context), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) },
    ).catch((e: unknown) => e);
    const failedAt = Date.now();

    expect(error).toMatchObject({ name: "StageTimedOut" });
    expect(failedAt).toBeLessThan(deadline);
    // The stream had begun, and ended by the abort: long before the endpoint would have resumed.
    await expect.poll(() => ends.length, { timeout: 1000 }).toBe(1);
    expect(ends[0]).toMatchObject({ chunks: 1, error: expect.any(String) });
    expect((ends[0] as StreamEnd).at - failedAt).toBeLessThan(1000);

    // Past the stall, nothing the attempt would have written is there: no audio, no result.
    await new Promise((resolve) => setTimeout(resolve, STALL_MS));
    expect(await deps.store.list(promptKeys.jobPrefix("pr-deadline"))).toEqual([]);
    const records = await deps.store.list(keys.lineagePrefix("pr-deadline"));
    expect(records).toHaveLength(1);
    const record = await readJson(deps.store, records[0] as string, ActivityRecord);
    expect(record).toMatchObject({ outcome: "failed", error: { name: "StageTimedOut" }, outputs: [] });
  }, 60_000);
});
