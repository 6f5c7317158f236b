import { InvalidInput } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import { keys } from "../src/key-layout";
import { type ObjectCreatedEvent, objectKeyOf, sourceIdentityOf } from "../src/source-event";
import { ODD_OBJECT_NAMES } from "./odd-object-names";

/** An "Object Created" event; `reason` present means S3 wrote it, absent means a workflow built it. */
function event(key: string, reason?: string): ObjectCreatedEvent {
  return {
    source: "aws.s3",
    "detail-type": "Object Created",
    time: "2026-01-01T00:00:00Z",
    detail: {
      bucket: { name: "b" },
      object: { key, etag: "e" },
      ...(reason === undefined ? {} : { reason }),
    },
  };
}

const ODD_KEYS = ODD_OBJECT_NAMES.map((name) => keys.incomingVoicemail(name));

describe("objectKeyOf: the key an S3 event names", () => {
  it("decodes S3's form encoding as S3 documents it: red+flower.jpg is 'red flower.jpg'", () => {
    expect(objectKeyOf(event("incoming/voicemail/red+flower.jpg", "PutObject"))).toBe(
      "incoming/voicemail/red flower.jpg",
    );
    expect(objectKeyOf(event("incoming/voicemail/a+b%2Bc%25%281%29.wav", "CompleteMultipartUpload"))).toBe(
      "incoming/voicemail/a b+c%(1).wav",
    );
    expect(objectKeyOf(event("incoming/voicemail/caf%C3%A9.wav", "CopyObject"))).toBe(
      "incoming/voicemail/café.wav",
    );
  });

  it("decodes '+' only as a space and keeps '/' and unescaped characters", () => {
    expect(objectKeyOf(event("incoming/voicemail/c%2B%2B+100%25+(copy).wav", "PutObject"))).toBe(
      "incoming/voicemail/c++ 100% (copy).wav",
    );
  });

  it("takes the key of an event without `reason` (the batch workflow's, from manifest keys) as it is", () => {
    for (const key of ODD_KEYS) {
      expect(objectKeyOf(event(key))).toBe(key);
      expect(sourceIdentityOf(event(key)).key).toBe(key);
    }
  });

  it.each([
    [
      "a '%' without two hex digits",
      "incoming/voicemail/maria%zz.wav",
      /'%' is not followed by two hex digits/,
    ],
    ["a trailing '%'", "incoming/voicemail/maria%", /'%' is not followed by two hex digits/],
    ["escapes that are not UTF-8", "incoming/voicemail/maria%C3%28.wav", /percent-escapes are not UTF-8/],
  ])("refuses %s with InvalidInput naming the problem, not the key", (_, key, problem) => {
    let error: unknown;
    try {
      objectKeyOf(event(key, "PutObject"));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as Error).message).toMatch(problem);
    expect((error as Error).message).not.toContain("maria");
  });
});
