import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { BUNDLED_ADAPTATIONS } from "../../models/telephony-adaptation";
import { defaultVoicemails } from "../../models/voicemail-language-model";
import { type AccuracyCorpus, CORPUS_FILE } from "../accuracy-corpus";
import type { FactAccuracyResult } from "../fact-accuracy";
import type { ClipResult } from "../fact-accuracy-summary";
import { foldModels, poolFolds, tuningFolds } from "../tuning-folds";

const corpus = async () => JSON.parse(await readFile(CORPUS_FILE, "utf8")) as AccuracyCorpus;

describe("the tuning folds", () => {
  it("split the tuning half in two by script, in corpus order, and never take a held-out script", async () => {
    const { scripts } = await corpus();
    const [a, b] = tuningFolds(scripts);
    expect(a.ids).toEqual(
      ["t01", "t02", "t03", "t04", "t05", "t06"].map((id) => expect.stringMatching(`^${id}-`)),
    );
    expect(b.ids).toEqual(
      ["t07", "t08", "t09", "t10", "t11", "t12"].map((id) => expect.stringMatching(`^${id}-`)),
    );
    const tuning = scripts.filter((script) => script.split === "tuning").map((script) => script.id);
    expect([...a.ids, ...b.ids]).toEqual(tuning);
  });

  it("build a fold's language model from its own scripts and the seed text alone", async () => {
    const { scripts } = await corpus();
    const [a, b] = tuningFolds(scripts);
    const text = (ids: readonly string[]) =>
      ids.map((id) => scripts.find((script) => script.id === id)?.text ?? "missing");
    const all = await defaultVoicemails();
    const ofA = await defaultVoicemails(a.ids);
    expect(ofA.slice(0, a.ids.length)).toEqual(text(a.ids));
    for (const other of text(b.ids)) expect(ofA).not.toContain(other);
    expect(ofA.length).toBe(all.length - b.ids.length);
  });

  it("keep each fold's models apart: a language model and one file per bundled adaptation", () => {
    const models = foldModels("/m", { name: "B", ids: [] });
    expect(models.languageModel).toBe("/m/B.lm.bin");
    expect(models.adaptations).toHaveLength(BUNDLED_ADAPTATIONS.length);
    expect(
      new Set([
        models.languageModel,
        ...models.adaptations,
        ...foldModels("/m", { name: "A", ids: [] }).adaptations,
      ]).size,
    ).toBe(1 + 2 * BUNDLED_ADAPTATIONS.length);
  });

  it("pool both folds' clips into one result, the reasoner's text facts summed", () => {
    const clip = (script: string, right: boolean): ClipResult => ({
      script,
      split: "tuning",
      voice: "slt",
      delivery: "telephony",
      noise: "heavy",
      transcript: "",
      referenceWords: 10,
      errors: right ? 0 : 2,
      wer: right ? 0 : 0.2,
      facts: [{ fact: "intent", expected: "billing", got: right ? "billing" : "other", right }],
      realTimeFactor: 0.5,
    });
    const run = (
      name: string,
      clips: ClipResult[],
    ): { fold: { name: string; ids: string[] }; result: FactAccuracyResult } => ({
      fold: { name, ids: [] },
      result: {
        engine: `engine ${name}`,
        snrDb: { light: 40, heavy: 30 },
        audioDir: "/a",
        clips,
        summaries: [],
        textReference: {
          tuning: {
            facts: { right: 3, total: 3, held: 0, statedWrong: 0 },
            records: { right: 1, total: 1, held: 0, statedWrong: 0 },
          },
          "held-out": {
            facts: { right: 0, total: 0, held: 0, statedWrong: 0 },
            records: { right: 0, total: 0, held: 0, statedWrong: 0 },
          },
        },
        wallMs: 1000,
      },
    });
    const pooled = poolFolds([run("A", [clip("t07", true)]), run("B", [clip("t01", false)])]);
    expect(pooled.engine).toBe("fold A's models: engine A; fold B's models: engine B");
    expect(pooled.textReference.tuning.facts).toEqual({ right: 6, total: 6, held: 0, statedWrong: 0 });
    expect(pooled.wallMs).toBe(2000);
    const all = pooled.summaries.find(
      (s) => s.split === "all" && s.voice === "all" && s.noise === "all" && s.delivery === "all",
    );
    expect(all).toMatchObject({ clips: 2, wer: 0.1, facts: { right: 1, total: 2 } });
  });
});
