import { createStageHandlers, type JobState } from "@voxtrail/functions";
import { objectCreatedEvent } from "@voxtrail/local";
import { describe, expect, it } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";
import { mulawWav } from "../../scripts/make-bad-fixtures";

const LIMIT_BYTES = 64 * 1024;

/** Ingest of a voicemail of `bytes` bytes under a `LIMIT_BYTES` limit, counting the store's whole-object reads. */
async function ingestOf(bytes: number) {
  const { deps } = await testDependencies({ maxSourceBytes: LIMIT_BYTES });
  let reads = 0;
  const getBytes = deps.store.getBytes.bind(deps.store);
  deps.store.getBytes = (key) => {
    reads += 1;
    return getBytes(key);
  };
  const wav = mulawWav(new Int16Array(bytes - 58));
  const stored = await deps.store.put("incoming/voicemail/big.wav", wav, { contentType: "audio/wav" });
  expect(stored.bytes).toBe(bytes);
  const event = objectCreatedEvent(deps.store.bucket, stored, new Date());
  const ingest = createStageHandlers(deps).ingest(
    {
      event,
      execution: { id: "exec-1", startTime: event.time },
    },
    context,
  ) as Promise<JobState>;
  return { ingest, reads: () => reads };
}

describe("the source byte limit (maxSourceBytes)", () => {
  it("refuses a voicemail just over the limit with InvalidAudio, before reading it", async () => {
    // WAV data is padded to an even length: two bytes over is the smallest excess.
    const { ingest, reads } = await ingestOf(LIMIT_BYTES + 2);
    await expect(ingest).rejects.toMatchObject({
      name: "InvalidAudio",
      message: `file is ${LIMIT_BYTES + 2} bytes; the limit is ${LIMIT_BYTES} bytes`,
    });
    expect(reads()).toBe(0);
  });

  it("accepts a voicemail exactly at the limit", async () => {
    const { ingest } = await ingestOf(LIMIT_BYTES);
    await expect(ingest).resolves.toMatchObject({ source: { bytes: LIMIT_BYTES } });
  });
});
