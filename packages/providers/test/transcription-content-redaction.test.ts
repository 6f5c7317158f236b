import { describe, expect, it } from "vitest";
import { contentRedaction } from "../src/transcription/amazon-transcribe";

describe("ContentRedaction in the start call", () => {
  it("asks Transcribe for PII redaction in en-US and es-US only", () => {
    expect(contentRedaction({ redaction: { output: "redacted" }, language: "en" })).toEqual({
      ContentRedaction: { RedactionType: "PII", RedactionOutput: "redacted" },
    });
    expect(
      contentRedaction({
        redaction: { output: "redacted_and_unredacted", piiEntityTypes: ["PHONE", "NAME"] },
        language: "es-US",
      }),
    ).toEqual({
      ContentRedaction: {
        RedactionType: "PII",
        RedactionOutput: "redacted_and_unredacted",
        PiiEntityTypes: ["PHONE", "NAME"],
      },
    });
    // Elsewhere (or off) the start asks none: our own redactor alone redacts the call.
    expect(contentRedaction({ redaction: { output: "redacted" }, language: "en-GB" })).toEqual({});
    expect(contentRedaction({ redaction: { output: "redacted" }, language: "fr" })).toEqual({});
    expect(contentRedaction({ language: "en" })).toEqual({});
    // A call whose language Transcribe identifies: redaction cannot be combined with identification.
    expect(
      contentRedaction({
        redaction: { output: "redacted" },
        language: "en",
        languageOptions: ["en-US", "es-US"],
      }),
    ).toEqual({});
  });
});
