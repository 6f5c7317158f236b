import { type BoundaryPolicy, BoundaryViolation, decideBoundaries, type Processor } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import type { Activity } from "../../src/kernel/activity-recorder";
import { requireRedactedBeforeSend, transcriptKey } from "../../src/redaction/stage-redaction";

const synthesizer: Processor = {
  provider: "cartesia-api",
  model: "sonic-3",
  version: "1",
  boundary: { kind: "third-party", host: "api.cartesia.ai" },
};
const policy: BoundaryPolicy = {
  schemaVersion: 1,
  environment: "test",
  kinds: {
    "reply-text": [{ boundary: "third-party", hosts: ["api.cartesia.ai"], redaction: "required" }],
    "reply-audio": [{ boundary: "third-party" }],
  },
};

function activityFor(redacted: boolean): Activity {
  return {
    inputs: [],
    outputs: [],
    processors: [],
    timings: [],
    measures: {},
    policy: decideBoundaries(policy, [
      {
        processor: synthesizer,
        kinds: ["reply-text", "reply-audio"],
        ...(redacted ? { redacted: ["reply-text"] } : {}),
      },
    ]),
  };
}

describe("the boundary policy's redaction requirement", () => {
  it("admits a kind into a boundary that requires redaction only when the stage sends it redacted", () => {
    expect(activityFor(true).policy).toMatchObject({
      outcome: "allowed",
      flows: [
        { kind: "reply-text", allowed: true, redacted: true },
        { kind: "reply-audio", allowed: true },
      ],
    });
    expect(activityFor(false).policy).toMatchObject({
      outcome: "refused",
      flows: [
        { kind: "reply-text", allowed: false, redacted: false },
        { kind: "reply-audio", allowed: true },
      ],
    });
    expect(activityFor(false).policy?.flows[1]).not.toHaveProperty("redacted");
  });
});

describe("requireRedactedBeforeSend", () => {
  it("lets a redacted reply through", () => {
    const activity = activityFor(true);
    requireRedactedBeforeSend(activity, "reply-text", "cartesia-api", "Hi, this is Acme about your order.");
    expect(activity.policy?.outcome).toBe("allowed");
  });

  it.each([
    "Hi, this is Acme about order 4271.",
    "Hi, this is Acme about order four two seven one.",
    "We'll call you at five five five, one two three, four five six seven.",
    "Your account forty four oh nine is past due.",
  ])("refuses %j before the send, and records the flow as unredacted", (text) => {
    const activity = activityFor(true);
    expect(() => requireRedactedBeforeSend(activity, "reply-text", "cartesia-api", text)).toThrow(
      BoundaryViolation,
    );
    expect(activity.policy).toMatchObject({
      outcome: "refused",
      flows: [{ kind: "reply-text", allowed: false, redacted: false }, { allowed: true }],
    });
  });

  it("reads a Spanish reply's 'once' beside a number as one, an English reply's never", () => {
    const spanish = activityFor(true);
    expect(() =>
      requireRedactedBeforeSend(spanish, "reply-text", "cartesia-api", "Su pedido siete once cuatro.", "es"),
    ).toThrow(BoundaryViolation);
    const english = activityFor(true);
    requireRedactedBeforeSend(english, "reply-text", "cartesia-api", "Order seven once four.", "en");
    expect(english.policy?.outcome).toBe("allowed");
  });

  it("names the kinds it found, never the values", () => {
    const activity = activityFor(true);
    expect(() =>
      requireRedactedBeforeSend(activity, "reply-text", "cartesia-api", "order 4271, call 555-123-4567"),
    ).toThrow(
      /unredacted reply-text into third-party:api\.cartesia\.ai \(provider cartesia-api\): it still holds 1 phone, 1 number$/,
    );
  });

  it("checks nothing where the policy asks no redaction", () => {
    const activity: Activity = {
      ...activityFor(true),
      policy: decideBoundaries({ ...policy, kinds: { "reply-text": [{ boundary: "third-party" }] } }, [
        { processor: synthesizer, kinds: ["reply-text"] },
      ]),
    };
    requireRedactedBeforeSend(activity, "reply-text", "cartesia-api", "order 4271");
    expect(activity.policy?.outcome).toBe("allowed");
  });
});

describe("transcriptKey", () => {
  it("puts the transcript in the unredacted location only when the stage redacts", () => {
    expect(transcriptKey(undefined, "job-1")).toBe("artifacts/job-1/transcript.json");
    expect(transcriptKey({ output: "redacted" }, "job-1")).toBe("artifacts/job-1/unredacted/transcript.json");
  });
});
