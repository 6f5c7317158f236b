import { describe, expect, it } from "vitest";
import { jobLanguageOf } from "../src/transcribe-endpoint/job-languages";

describe("the language a StartTranscriptionJob asks the stand-in for", () => {
  it("is an English LanguageCode by default, and only that", () => {
    expect(jobLanguageOf({ LanguageCode: "en-GB" }, {})).toEqual({ code: "en-GB" });
    expect(jobLanguageOf({ LanguageCode: "es-US" }, {})).toBe(
      "this stand-in transcribes en-US, en-GB, ... only: LanguageCode must be one of them",
    );
  });

  it("is one of the codes it was given (es-US, for a test of the wiring)", () => {
    expect(jobLanguageOf({ LanguageCode: "es-US" }, { languageCodes: ["en-US", "es-US"] })).toEqual({
      code: "es-US",
    });
  });

  it("is identification among at least two taken LanguageOptions, only with an identifier and without LanguageCode", () => {
    const identifyLanguage = () => "es-US";
    const settings = { languageCodes: ["en-US", "es-US"], identifyLanguage };
    expect(jobLanguageOf({ IdentifyLanguage: true, LanguageOptions: ["en-US", "es-US"] }, settings)).toEqual({
      identifyAmong: ["en-US", "es-US"],
    });
    expect(
      jobLanguageOf(
        { IdentifyLanguage: true, LanguageOptions: ["en-US", "es-US"] },
        { languageCodes: ["en-US"] },
      ),
    ).toBe("this stand-in cannot identify languages: give LanguageCode");
    expect(jobLanguageOf({ IdentifyLanguage: true, LanguageOptions: ["es-US"] }, settings)).toMatch(
      /at least two/,
    );
    expect(jobLanguageOf({ IdentifyLanguage: true, LanguageOptions: ["en-US", "fr-FR"] }, settings)).toMatch(
      /at least two/,
    );
    expect(
      jobLanguageOf(
        { IdentifyLanguage: true, LanguageCode: "en-US", LanguageOptions: ["en-US", "es-US"] },
        settings,
      ),
    ).toBe("include one of LanguageCode and IdentifyLanguage, not both");
  });
});
