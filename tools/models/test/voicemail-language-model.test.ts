import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VOICEMAIL_LANGUAGE_MODEL } from "@voxtrail/providers";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { buildVoicemailLanguageModel, defaultVoicemails, toSentences } from "../voicemail-language-model";

const GENERAL_LM = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin";
const HAVE_SPHINX =
  existsSync(GENERAL_LM) && spawnSync("sphinx_lm_eval", ["-help", "yes"]).error === undefined;

describe("toSentences", () => {
  test("splits at sentence ends, lower-cases, keeps apostrophes, drops words not known", () => {
    const known = new Set(["hi", "i'm", "calling", "about", "order", "three", "one", "call", "me", "back"]);
    expect(toSentences("Hi, I'm Priya. Calling about order three-one?\nCall me back!", known)).toEqual([
      ["hi", "i'm"],
      ["calling", "about", "order", "three", "one"],
      ["call", "me", "back"],
    ]);
    expect(toSentences("...  \n", known)).toEqual([]);
  });
});

/** Perplexity of `model` on `text`, as sphinx_lm_eval reports it. */
function perplexity(model: string, text: string): number {
  const result = spawnSync("sphinx_lm_eval", ["-lm", model, "-text", text], { encoding: "utf8" });
  const match = /perplexity: ([\d.]+)/.exec(`${result.stdout}${result.stderr}`);
  if (!match) throw new Error(`sphinx_lm_eval gave no perplexity (exit ${result.status})`);
  return Number(match[1]);
}

describe.skipIf(!HAVE_SPHINX)(
  HAVE_SPHINX
    ? "buildVoicemailLanguageModel"
    : "buildVoicemailLanguageModel (skipped: pocketsphinx-en-us or sphinxbase-utils is not installed; run scripts/setup.sh)",
  () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "voxtrail-voicemail-lm-"));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    test("the bundled model is what the build makes of the tuning half and the seed text, and it prefers voicemail phrasing", async () => {
      const out = join(dir, "voicemail.lm.bin");
      const build = await buildVoicemailLanguageModel({ voicemails: await defaultVoicemails(), out });
      expect(build).toMatchObject({ sentences: 452, words: 9285 });
      const sha256 = async (file: string) =>
        createHash("sha256")
          .update(await readFile(file))
          .digest("hex");
      expect(build.sha256).toBe(await sha256(out));
      expect(build.sha256).toBe(await sha256(VOICEMAIL_LANGUAGE_MODEL));
      // Digits and days are classes: a number or a day the text never used is as likely as one it did.
      const message = "my account number is six six zero nine please call me back on saturday";
      expect(perplexity(out, message)).toBeLessThan(perplexity(GENERAL_LM, message) / 2);
      const unrelated = "the committee approved the budget for the new bridge";
      expect(perplexity(out, unrelated)).toBeLessThan(perplexity(GENERAL_LM, unrelated) * 2);
    });
  },
);
