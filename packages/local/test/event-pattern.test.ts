import { readFileSync } from "node:fs";
import { voicemailRulePattern } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { matchesPattern } from "../src/events/event-pattern";
import { objectCreatedEvent } from "../src/events/object-created-event";

const sample = JSON.parse(
  readFileSync(new URL("../../../fixtures/events/s3-object-created.json", import.meta.url), "utf8"),
);
const bucket: string = sample.detail.bucket.name;
const withKey = (key: string) => ({
  ...sample,
  detail: { ...sample.detail, object: { ...sample.detail.object, key } },
});

describe("matchesPattern with the voicemail rule", () => {
  const pattern = voicemailRulePattern(bucket);

  it("matches AWS's documented Object Created event for a key under incoming/voicemail/", () => {
    expect(matchesPattern(withKey("incoming/voicemail/a.wav"), pattern)).toBe(true);
  });

  it("does not match other prefixes, other buckets, or other event types", () => {
    expect(matchesPattern(sample, pattern)).toBe(false); // key "example-key"
    expect(matchesPattern(withKey("incoming/prompts/a.csv"), pattern)).toBe(false);
    expect(matchesPattern(withKey("incoming/voicemail/a.wav"), voicemailRulePattern("other-bucket"))).toBe(
      false,
    );
    expect(
      matchesPattern({ ...withKey("incoming/voicemail/a.wav"), "detail-type": "Object Deleted" }, pattern),
    ).toBe(false);
  });

  it("does not match when a field the pattern names is missing", () => {
    const { detail, ...rest } = withKey("incoming/voicemail/a.wav");
    expect(matchesPattern(rest, pattern)).toBe(false);
    expect(matchesPattern({ ...rest, detail: { bucket: detail.bucket } }, pattern)).toBe(false);
  });

  it("matches any element of an array field, as EventBridge does", () => {
    expect(matchesPattern({ tags: ["a", "b"] }, { tags: ["b"] })).toBe(true);
    expect(matchesPattern({ tags: ["a"] }, { tags: ["b"] })).toBe(false);
  });

  it("refuses operators it does not implement instead of guessing", () => {
    expect(() => matchesPattern({ size: 5 }, { size: [{ numeric: ">" } as never] })).toThrow(/not supported/);
  });

  it("matches the events the local runtime makes", () => {
    const event = objectCreatedEvent(
      bucket,
      {
        key: "incoming/voicemail/x.wav",
        uri: "file:///x",
        bytes: 10,
        contentType: "audio/wav",
        etag: '"abc"',
      },
      new Date(),
    );
    expect(matchesPattern(event, pattern)).toBe(true);
    expect(Object.keys(event).sort()).toEqual(Object.keys(sample).sort());
    expect(Object.keys(event.detail).sort()).toEqual(Object.keys(sample.detail).sort());
    expect(event.detail.object.etag).toBe("abc");
  });
});
