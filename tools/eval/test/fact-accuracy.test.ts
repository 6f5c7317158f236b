import { readFile } from "node:fs/promises";
import type { VoicemailRecord } from "@voxtrail/core";
import { JsonlRecordLookup } from "@voxtrail/providers";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AccuracyCorpus,
  CORPUS_FILE,
  corpusProblems,
  loadAccuracyCorpus,
  MIN_SCRIPTS,
  RECORDS_FILE,
} from "../accuracy-corpus";
import type { FactAccuracyResult } from "../fact-accuracy";
import { type ClipResult, summarizeClips } from "../fact-accuracy-summary";
import { factAccuracyTable } from "../fact-accuracy-table";
import { type FactScore, scoreFacts, tallyFacts } from "../fact-scoring";

let records: JsonlRecordLookup;
let corpus: AccuracyCorpus;

beforeAll(async () => {
  records = await JsonlRecordLookup.fromFile(RECORDS_FILE);
  corpus = JSON.parse(await readFile(CORPUS_FILE, "utf8")) as AccuracyCorpus;
});

/** A copy of the committed corpus, changed by `change`. */
function changed(change: (copy: AccuracyCorpus) => void): AccuracyCorpus {
  const copy = structuredClone(corpus);
  change(copy);
  return copy;
}

describe("the fact-accuracy corpus", () => {
  it("is valid: enough scripts, half held out, every phenomenon in both halves, numbers that find their records", async () => {
    expect(await corpusProblems(corpus, records)).toEqual([]);
    await expect(loadAccuracyCorpus(CORPUS_FILE, records)).resolves.toEqual(corpus);
    expect(corpus.scripts.length).toBeGreaterThanOrEqual(MIN_SCRIPTS);
  });

  it("has scripts that expect a record and scripts that expect none", () => {
    const expected = corpus.scripts.map((script) => script.expected.record);
    expect(expected.filter((record) => record === null).length).toBeGreaterThanOrEqual(4);
    expect(expected.filter((record) => record !== null).length).toBeGreaterThanOrEqual(12);
  });

  it("names what is wrong with a corpus that breaks the rules", async () => {
    const broken = changed((copy) => {
      const [first, second] = copy.scripts;
      if (!first || !second) throw new Error("corpus too small");
      first.split = "held-out";
      first.expected.numbers = [{ kind: "orderNumber", value: "4517" }];
      second.id = first.id;
      copy.scripts = copy.scripts.filter((script) => !script.phenomena.includes("spelled-name"));
    });
    const problems = await corpusProblems(broken, records);
    expect(problems).toContain(`${broken.scripts.length} scripts; at least ${MIN_SCRIPTS} needed`);
    expect(problems.some((problem) => /scripts held out, not half/.test(problem))).toBe(true);
    expect(problems).toContain("t01-chair-broken: duplicate id");
    expect(problems).toContain("t01-chair-broken: numbers find record null, expected ord-3158");
    expect(problems).toContain("no tuning script has spelled-name");
    expect(problems).toContain("no held-out script has spelled-name");
  });

  it("finds a script that expects no match but names a number in the records", async () => {
    const matching = changed((copy) => {
      const unknown = copy.scripts.find((script) => script.id === "t08-cancel-unknown-order");
      if (!unknown) throw new Error("t08 missing");
      unknown.expected.numbers = [{ kind: "orderNumber", value: "5034" }];
    });
    expect(await corpusProblems(matching, records)).toEqual([
      "t08-cancel-unknown-order: numbers find record ord-5034, expected null",
    ]);
  });
});

/** A voicemail record with only what fact scoring reads. */
function record(
  intent: VoicemailRecord["intent"],
  entities: VoicemailRecord["entities"],
  found?: string,
): Pick<VoicemailRecord, "intent" | "entities" | "match"> {
  return {
    intent,
    entities,
    match: found
      ? { outcome: "found", matchedOn: "orderNumber", record: { type: "order", id: found } }
      : { outcome: "not-found", searchedFor: [] },
  };
}

describe("scoreFacts", () => {
  const expected = {
    intent: "reschedule" as const,
    numbers: [
      { kind: "accountNumber" as const, value: "7720" },
      { kind: "callbackNumber" as const, value: "5558672341" },
    ],
    day: "Wednesday",
    record: "acct-7720",
  };

  it("scores each expected fact right only when the reasoner's value is the same", () => {
    const got = record("reschedule", { accountNumber: "7720", callbackNumber: "5558672341", day: "Tuesday" });
    expect(scoreFacts(expected, got)).toEqual([
      { fact: "intent", expected: "reschedule", got: "reschedule", right: true },
      { fact: "accountNumber", expected: "7720", got: "7720", right: true },
      { fact: "callbackNumber", expected: "5558672341", got: "5558672341", right: true },
      { fact: "day", expected: "Wednesday", got: "Tuesday", right: false },
      { fact: "record", expected: "acct-7720", got: "none", right: false },
    ]);
  });

  it("counts a missing number as wrong and ignores facts the script does not state", () => {
    const got = record("cancellation", { orderNumber: "4517", time: "3:30" });
    const scores = scoreFacts({ intent: "cancellation", numbers: [], record: null }, got);
    expect(scores).toEqual([
      { fact: "intent", expected: "cancellation", got: "cancellation", right: true },
      { fact: "record", expected: "none", got: "none", right: true },
    ]);
    expect(scoreFacts(expected, record("other", {}, "acct-7720"))).toEqual([
      { fact: "intent", expected: "reschedule", got: "other", right: false },
      { fact: "accountNumber", expected: "7720", got: null, right: false },
      { fact: "callbackNumber", expected: "5558672341", got: null, right: false },
      { fact: "day", expected: "Wednesday", got: null, right: false },
      { fact: "record", expected: "acct-7720", got: "acct-7720", right: true },
    ]);
  });

  it("counts a held fact as not right and not stated wrongly, and keeps its confidence", () => {
    const got = {
      ...record("reschedule", { accountNumber: "7720", callbackNumber: "5558672341", day: "Tuesday" }),
      confidence: { accountNumber: 0.2, day: 0.9 },
      review: [{ fact: "accountNumber" as const, confidence: 0.2, threshold: 0.5, reason: "low" }],
    };
    const scores = scoreFacts(expected, got);
    expect(scores[1]).toEqual({
      fact: "accountNumber",
      expected: "7720",
      got: "7720",
      right: false,
      held: true,
      confidence: 0.2,
    });
    expect(tallyFacts(scores)).toEqual({ right: 2, total: 4, held: 1, statedWrong: 1 });
  });

  it("tallies the facts without the record by default, and the record alone when asked", () => {
    const scores = scoreFacts(expected, record("reschedule", { accountNumber: "7720" }, "acct-7720"));
    expect(tallyFacts(scores)).toEqual({ right: 2, total: 4, held: 0, statedWrong: 0 });
    expect(tallyFacts(scores, (fact) => fact === "record")).toEqual({
      right: 1,
      total: 1,
      held: 0,
      statedWrong: 0,
    });
  });
});

describe("summarizeClips", () => {
  const facts = (...rights: boolean[]): FactScore[] =>
    rights.map((right) => ({ fact: "intent", expected: "billing", got: right ? "billing" : "other", right }));
  const clip = (overrides: Partial<ClipResult>): ClipResult => ({
    script: "t01",
    split: "tuning",
    voice: "slt",
    delivery: "wideband",
    noise: "light",
    transcript: "",
    referenceWords: 10,
    errors: 0,
    wer: 0,
    facts: [],
    realTimeFactor: 0.3,
    ...overrides,
  });

  it("pools word errors over words, not rates over clips, and keeps the halves apart", () => {
    const summaries = summarizeClips([
      clip({ referenceWords: 10, errors: 5, facts: facts(true, false) }),
      clip({ referenceWords: 30, errors: 3, delivery: "telephony", facts: facts(true) }),
      clip({ split: "held-out", referenceWords: 20, errors: 20, facts: facts(false) }),
    ]);
    const find = (split: string, delivery: string) =>
      summaries.find(
        (summary) =>
          summary.split === split &&
          summary.voice === "all" &&
          summary.delivery === delivery &&
          summary.noise === "all",
      );
    expect(find("tuning", "all")).toMatchObject({ clips: 2, wer: 8 / 40, facts: { right: 2, total: 3 } });
    expect(find("tuning", "telephony")).toMatchObject({ clips: 1, wer: 0.1 });
    expect(find("held-out", "all")).toMatchObject({ clips: 1, wer: 1, facts: { right: 0, total: 1 } });
    expect(find("all", "wideband")).toMatchObject({ clips: 2, wer: 25 / 30 });
    expect(find("held-out", "telephony")).toBeUndefined();
  });

  it("are tabled with halves, deliveries and noise levels pooled only when more than one was measured", () => {
    const none = { right: 0, total: 0, held: 0, statedWrong: 0 };
    const table = (clips: ClipResult[]) =>
      factAccuracyTable({
        engine: "engine",
        snrDb: { light: 40, heavy: 30 },
        audioDir: "/a",
        clips,
        summaries: summarizeClips(clips),
        textReference: { tuning: { facts: none, records: none }, "held-out": { facts: none, records: none } },
        wallMs: 1000,
      } satisfies FactAccuracyResult);
    const tuning = clip({ delivery: "telephony", facts: facts(true) });
    const one = table([tuning]);
    expect(one).toContain("tuning: 1 scripts");
    expect(one).not.toContain("both halves");
    expect(one).not.toMatch(/^all {6}tuned/m); // the per-kind table's split column
    expect(one).not.toMatch(/^\S+ +all /m); // deliveries pooled
    expect(one).not.toMatch(/^\S+ +\S+ +all /m); // noise levels pooled
    const both = table([tuning, clip({ split: "held-out", delivery: "telephony", facts: facts(false) })]);
    expect(both).toContain("both halves");
    expect(both).toMatch(/^all {16}telephony light +2 .* 1\/2 \(50\.0%\)/m);
    expect(both).toMatch(/^all {6}tuned {4}telephony light 1\/2 \(50\.0%\)/m);
    expect(both).not.toMatch(/^\S+ +all /m);
    const noises = table([tuning, clip({ delivery: "telephony", noise: "heavy", facts: facts(false) })]);
    expect(noises).toMatch(/^all {16}telephony all +2 .* 1\/2 \(50\.0%\)/m);
    expect(noises).not.toMatch(/^\S+ +all /m);
  });
});
