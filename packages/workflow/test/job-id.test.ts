import { describe, expect, it } from "vitest";
import { jobIdFor, promptsJobIdFor } from "../src/index";

const upload = { bucket: "b", key: "incoming/voicemail/x.wav", etag: '"e1"', versionId: "v1" };

describe("jobIdFor: one voicemail job per object version", () => {
  it("names the same job for a duplicate delivery of one version", () => {
    expect(jobIdFor({ ...upload })).toBe(jobIdFor(upload));
    expect(jobIdFor(upload)).toMatch(/^vm-[0-9a-f]{20}$/);
  });

  it("names a new job for a new version, even of the same bytes (an upload after an erasure)", () => {
    expect(jobIdFor({ ...upload, versionId: "v2" })).not.toBe(jobIdFor(upload));
  });

  it("tells keys and buckets apart", () => {
    expect(jobIdFor({ ...upload, key: "incoming/voicemail/y.wav" })).not.toBe(jobIdFor(upload));
    expect(jobIdFor({ ...upload, bucket: "c" })).not.toBe(jobIdFor(upload));
  });

  it("without a version id, stands on the etag (quotes aside)", () => {
    const unversioned = { bucket: "b", key: upload.key };
    expect(jobIdFor({ ...unversioned, etag: "e1" })).toBe(jobIdFor({ ...unversioned, etag: '"e1"' }));
    expect(jobIdFor({ ...unversioned, etag: "e2" })).not.toBe(jobIdFor({ ...unversioned, etag: "e1" }));
  });
});

describe("promptsJobIdFor: one prompts job per manifest content", () => {
  it("names the same job for the same manifest uploaded again (a new version)", () => {
    const manifest = { bucket: "b", key: "incoming/prompts/menu.csv", etag: "e1", versionId: "v1" };
    expect(promptsJobIdFor({ ...manifest, versionId: "v2" })).toBe(promptsJobIdFor(manifest));
    expect(promptsJobIdFor({ ...manifest, etag: "e2" })).not.toBe(promptsJobIdFor(manifest));
    expect(promptsJobIdFor(manifest)).toMatch(/^pr-[0-9a-f]{20}$/);
  });
});
