import { describe, expect, it } from "vitest";
import { ActivityRecord, LOCAL_BOUNDARY, POINTERS_ONLY } from "../src";

const sha256 = "a".repeat(64);

describe("ActivityRecord", () => {
  it("keeps the source identity of the caller's audio when parsed", () => {
    const source = {
      kind: "source-audio",
      uri: "s3://b/incoming/voicemail/a.wav",
      key: "incoming/voicemail/a.wav",
      sha256,
      bytes: 10,
      contentType: "audio/wav",
      bucket: "b",
      versionId: "3sL4kqtJlcpXroDTDmJ-rmSpXd3dIbrHY",
      etag: '"abc"',
    };
    const record = ActivityRecord.parse({
      schemaVersion: 2,
      activityId: "1",
      jobId: "vm-1",
      stage: "Ingest",
      attempt: 1,
      startedAt: "2026-11-30T00:00:00.000Z",
      endedAt: "2026-11-30T00:00:01.000Z",
      outcome: "succeeded",
      compute: LOCAL_BOUNDARY,
      inputs: [source],
      outputs: [],
      processors: [],
      timings: [],
      sideChannels: POINTERS_ONLY,
    });
    expect(record.inputs[0]).toEqual(source);
  });
});
