import { ObjectCreatedEvent, objectKeyOf, sourceIdentityOf, voicemailRulePattern } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { ODD_OBJECT_NAMES } from "../../workflow/test/odd-object-names";
import { matchesPattern } from "../src/events/event-pattern";
import { objectCreatedEvent, s3EventKey } from "../src/events/object-created-event";

describe("objectCreatedEvent encodes the key as S3 does, and the handlers decode it back", () => {
  it("form-encodes each segment: spaces as '+', '+' '%' '(' ')' escaped, '/' kept", () => {
    expect(s3EventKey("incoming/voicemail/a b+c%(1).wav")).toBe("incoming/voicemail/a+b%2Bc%25%281%29.wav");
    expect(s3EventKey("incoming/voicemail/café.wav")).toBe("incoming/voicemail/caf%C3%A9.wav");
  });

  it.each(ODD_OBJECT_NAMES)(
    "%j round-trips through the event to the same key and source identity",
    (name) => {
      const key = `incoming/voicemail/${name}`;
      const event = objectCreatedEvent(
        "bucket",
        { key, bytes: 1, uri: "", contentType: "audio/wav", etag: '"e"' },
        new Date(),
      );
      expect(event.detail.object.key).not.toMatch(/[ ()]/);
      expect(event.detail.reason).toBe("PutObject");
      expect(matchesPattern(event, voicemailRulePattern("bucket"))).toBe(true);
      const parsed = ObjectCreatedEvent.parse(event);
      expect(objectKeyOf(parsed)).toBe(key);
      expect(sourceIdentityOf(parsed)).toEqual({ bucket: "bucket", key, etag: "e" });
    },
  );
});
