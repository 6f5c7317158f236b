import { describe, expect, it } from "vitest";
import {
  CallLanguageUnsupported,
  callLanguage,
  languageFromKey,
  primaryLanguage,
  TranscriberLanguageUnsupported,
} from "../src/index";

const TAKEN = ["en-US", "es-US"];

describe("a call's language", () => {
  it("is the object's language metadata first, matched to the stage's tag ignoring case", () => {
    expect(callLanguage({ key: "incoming/en-US/vm.wav", metadata: "es-us", languages: TAKEN })).toBe("es-US");
  });

  it("else a language folder of the key, else the stage's only language, else unknown", () => {
    expect(languageFromKey("incoming/voicemail/ES-US/vm.wav", TAKEN)).toBe("es-US");
    expect(callLanguage({ key: "incoming/vm.wav", languages: ["es-US"] })).toBe("es-US");
    expect(callLanguage({ key: "incoming/vm.wav", languages: TAKEN })).toBeUndefined();
    // The file name is the caller's: only folders name a language.
    expect(languageFromKey("incoming/es-US", TAKEN)).toBeUndefined();
  });

  it("that the stage does not take is CallLanguageUnsupported, naming the tag and what is taken", () => {
    expect(() => callLanguage({ key: "incoming/pt-BR/vm.wav", languages: TAKEN })).toThrow(
      CallLanguageUnsupported,
    );
    expect(() => callLanguage({ key: "incoming/vm.wav", metadata: "ja-JP", languages: TAKEN })).toThrow(
      /"ja-JP" is not one this deployment takes \(en-US, es-US\)/,
    );
  });

  it("names its errors", () => {
    expect(new TranscriberLanguageUnsupported("x").name).toBe("TranscriberLanguageUnsupported");
    expect(new TranscriberLanguageUnsupported("x").retryable).toBe(false);
    expect(primaryLanguage("es-US")).toBe("es");
  });
});
