import { LOCAL_BOUNDARY, ReasoningThrottled, type Transcript, VoicemailRecord } from "@voxtrail/core";
import { JsonlRecordLookup, LocalReasoner } from "@voxtrail/providers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BedrockThrottle } from "../../src/load/bedrock-throttle";
import { ThrottledReasoner } from "../../src/load/throttled-reasoner";

// The load run's Bedrock-like throttle on a fake clock: vitest fakes the global Date it reads.

/** The start of a clock minute. */
const T0 = new Date("2026-12-06T10:00:00Z").getTime();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"], now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the Bedrock-like throttle", () => {
  it("accepts its requests-per-minute limit a minute, minutes counted from its first call, and refuses the rest", () => {
    const throttle = new BedrockThrottle({ requestsPerMinute: 2 });
    vi.setSystemTime(T0 + 30_000);
    expect([throttle.take(10), throttle.take(10), throttle.take(10)]).toEqual([true, true, false]);
    // The clock's own minute turns; the throttle's, counted from its first call, does not.
    vi.setSystemTime(T0 + 89_999);
    expect(throttle.take(10)).toBe(false);
    vi.setSystemTime(T0 + 90_000);
    expect([throttle.take(10), throttle.take(10), throttle.take(10)]).toEqual([true, true, false]);
    expect(throttle.use()).toEqual({ requestsPerMinute: { peak: 2, limit: 2, refused: 3 } });
  });

  it("refuses a call whose tokens this minute's token quota cannot hold, taking no request for it", () => {
    const throttle = new BedrockThrottle({ requestsPerMinute: 10, tokensPerMinute: 1_000 });
    expect(throttle.take(600)).toBe(true);
    expect(throttle.take(600)).toBe(false);
    expect(throttle.take(400)).toBe(true);
    expect(throttle.take(1)).toBe(false);
    vi.setSystemTime(T0 + 60_000);
    expect(throttle.take(1_000)).toBe(true);
    expect(throttle.take(1_001)).toBe(false);
    expect(throttle.use()).toEqual({
      requestsPerMinute: { peak: 2, limit: 10, refused: 0 },
      tokensPerMinute: { peak: 1_000, limit: 1_000, refused: 3 },
    });
  });
});

describe("the local reasoner behind the throttle", () => {
  const records = new JsonlRecordLookup(
    JSON.stringify({ type: "order", id: "ord-4271", orderNumber: "4271", customerName: "Maria Lopez" }),
  );
  const transcript: Transcript = {
    text: "hi this is maria lopez my order four two seven one arrived damaged",
    words: [],
    language: "en",
    audioMs: 5_000,
    processor: { provider: "test", model: "test", version: "0", boundary: LOCAL_BOUNDARY },
  };

  it("answers with the local reasoner's record, its processor saying simulated and not Bedrock", async () => {
    const reasoner = new ThrottledReasoner(
      new LocalReasoner(),
      new BedrockThrottle({ requestsPerMinute: 1 }),
    );
    const local = await new LocalReasoner().reason(transcript, records);
    const record = VoicemailRecord.parse(await reasoner.reason(transcript, records));
    expect(record).toEqual({ ...local, processor: reasoner.processor });
    expect(record.processor).toMatchObject({
      provider: "local-rules",
      version: "simulated",
      boundary: LOCAL_BOUNDARY,
    });
    expect(record.processor.model).toMatch(
      /^simulated: voxtrail-local-reasoner 5 behind a simulated Bedrock-like throttle; not Bedrock$/,
    );
  });

  it("throws ReasoningThrottled, as the Bedrock reasoner maps ThrottlingException, when the throttle refuses", async () => {
    const reasoner = new ThrottledReasoner(
      new LocalReasoner(),
      new BedrockThrottle({ requestsPerMinute: 1 }),
    );
    await reasoner.reason(transcript, records);
    const refused = await reasoner.reason(transcript, records).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ReasoningThrottled);
    expect(refused).toMatchObject({
      name: "ReasoningThrottled",
      message: "Bedrock ThrottlingException: status 429",
    });
  });

  it("charges the prompt, the transcript and the record's fields in tokens, about 4 characters each", async () => {
    const throttle = new BedrockThrottle({ requestsPerMinute: 10, tokensPerMinute: 100_000 });
    const record = await new ThrottledReasoner(new LocalReasoner(), throttle).reason(transcript, records);
    const { intent, entities, summary, replyText } = record;
    const characters =
      transcript.text.length + JSON.stringify({ intent, entities, summary, replyText }).length;
    expect(throttle.use().tokensPerMinute?.peak).toBe(500 + Math.ceil(characters / 4));
  });
});
