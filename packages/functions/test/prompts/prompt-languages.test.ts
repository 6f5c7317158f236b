import { Readable } from "node:stream";
import { type BadPromptRow, PromptLanguageUnsupported, type PromptRow } from "@voxtrail/core";
import { SONIC_LANGUAGES, SYNTHESIZER_LANGUAGES, SYNTHESIZERS, speaksLanguage } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { manifestLines } from "../../src/prompts/manifest-lines";
import { PromptRowValidator, type SpokenLanguages } from "../../src/prompts/prompt-rows";
import { spokenLanguages } from "../../src/prompts/spoken-languages";

const LOCAL: SpokenLanguages = { synthesizer: "local", languages: ["en"], defaultLanguage: "en" };
const SECRET = "Secret prompt text";

async function validate(
  body: string,
  spoken: SpokenLanguages | undefined,
): Promise<{ rows: PromptRow[]; bad: BadPromptRow[] }> {
  const validator = new PromptRowValidator("csv", undefined, spoken);
  const rows: PromptRow[] = [];
  const bad: BadPromptRow[] = [];
  for await (const line of manifestLines(Readable.from([Buffer.from(body)]))) {
    const checked = validator.check(line);
    if (checked?.ok) rows.push(checked.row);
    else if (checked) bad.push(checked.bad);
  }
  return { rows, bad };
}

describe("SYNTHESIZER_LANGUAGES", () => {
  it("has an entry for every synthesizer choice: the local endpoint English (flite) and Spanish (espeak-ng), Sonic Cartesia's list", () => {
    expect(Object.keys(SYNTHESIZER_LANGUAGES).sort()).toEqual([...SYNTHESIZERS].sort());
    expect(SYNTHESIZER_LANGUAGES.local).toEqual(["en", "es"]);
    expect(SYNTHESIZER_LANGUAGES["sonic-sagemaker"]).toBe(SONIC_LANGUAGES);
    expect(SYNTHESIZER_LANGUAGES["cartesia-api"]).toBe(SONIC_LANGUAGES);
    expect(SONIC_LANGUAGES).toEqual(expect.arrayContaining(["en", "fr", "de", "es", "ja", "zh", "hi", "ko"]));
    expect(new Set(SONIC_LANGUAGES).size).toBe(SONIC_LANGUAGES.length);
    for (const code of SONIC_LANGUAGES) expect(code).toMatch(/^[a-z]{2}$/);
  });

  it("speaksLanguage compares a tag's primary subtag, ignoring case", () => {
    expect(speaksLanguage(["en"], "en")).toBe(true);
    expect(speaksLanguage(["en"], "en-US")).toBe(true);
    expect(speaksLanguage(["en"], "EN_gb")).toBe(true);
    expect(speaksLanguage(["en"], "ja")).toBe(false);
    expect(speaksLanguage(["en"], "eng")).toBe(false);
    expect(speaksLanguage(["en"], "")).toBe(false);
    expect(speaksLanguage(SONIC_LANGUAGES, "ja-JP")).toBe(true);
  });
});

describe("PromptRowValidator given the synthesizer's languages", () => {
  it("makes a row in another language a bad row PromptLanguageUnsupported; the others are unaffected", async () => {
    const { rows, bad } = await validate(
      `id,text,language\np1,Press one.,en\np2,${SECRET},ja\np3,Press three.,\np4,Press four.,en-US\n`,
      LOCAL,
    );

    expect(rows.map((row) => row.id)).toEqual(["p1", "p3", "p4"]);
    expect(bad).toEqual([
      {
        line: 3,
        id: "p2",
        error: "PromptLanguageUnsupported",
        message:
          'line 3: the language "ja" is not one the synthesizer local speaks (en): choose a synthesizer that speaks it, or remove the row',
      },
    ]);
    expect(JSON.stringify(bad)).not.toContain(SECRET);
  });

  it("checks a row without a language against the default language", async () => {
    const { rows, bad } = await validate("id,text\np1,Press one.\n", { ...LOCAL, defaultLanguage: "ja" });

    expect(rows).toEqual([]);
    expect(bad[0]).toMatchObject({ error: "PromptLanguageUnsupported" });
    expect(bad[0]?.message).toMatch(/^line 2: the default language "ja" is not one/);
  });

  it("quotes at most 35 characters of a language that is not a tag", async () => {
    const { bad } = await validate(`id,text,language\np1,Hi.,${"x".repeat(200)}\n`, LOCAL);

    expect(bad[0]?.message).toContain(`"${"x".repeat(35)}"`);
    expect(bad[0]?.message).not.toContain("x".repeat(36));
  });

  it("accepts Japanese for a Sonic synthesizer, and any language without `spoken`", async () => {
    const sonic = { synthesizer: "cartesia-api", languages: SONIC_LANGUAGES, defaultLanguage: "en" };
    expect((await validate("id,text,language\np1,Hi.,ja\n", sonic)).bad).toEqual([]);
    expect((await validate("id,text,language\np1,Hi.,ja\n", undefined)).bad).toEqual([]);
  });

  it("names PromptLanguageUnsupported as a prompt row error that is not retried", () => {
    expect(new PromptLanguageUnsupported("x")).toMatchObject({
      name: "PromptLanguageUnsupported",
      retryable: false,
    });
  });
});

describe("spokenLanguages", () => {
  const processor = {
    provider: "cartesia-api",
    model: "sonic-3",
    version: "test",
    boundary: { kind: "local" as const },
  };

  it("uses the languages a synthesizer declares", () => {
    const synthesizer = { processor, languages: SONIC_LANGUAGES };
    expect(spokenLanguages({ synthesizer, language: "en" }, {})).toEqual({
      synthesizer: "cartesia-api",
      languages: SONIC_LANGUAGES,
      defaultLanguage: "en",
    });
  });

  it("otherwise reads the synthesizer choice from the environment, local when unset", () => {
    expect(spokenLanguages({ synthesizer: { processor }, language: "en" }, {})).toEqual({
      ...LOCAL,
      languages: ["en", "es"],
    });
    expect(spokenLanguages({ language: "fr" }, { VOXTRAIL_SYNTHESIZER: "sonic-sagemaker" })).toEqual({
      synthesizer: "sonic-sagemaker",
      languages: SONIC_LANGUAGES,
      defaultLanguage: "fr",
    });
  });

  it("refuses an unknown choice with InvalidInput", () => {
    expect(() => spokenLanguages({ language: "en" }, { VOXTRAIL_SYNTHESIZER: "espeak" })).toThrow(
      expect.objectContaining({ name: "InvalidInput" }),
    );
  });
});
