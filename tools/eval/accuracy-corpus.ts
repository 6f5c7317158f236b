/**
 * The fact-accuracy corpus (fixtures/accuracy/scripts.json): voicemail scripts with the facts a
 * listener would take from them, each in the tuning half or the held-out half. Loading checks the
 * corpus against the business records, so a script that expects a match names numbers that are in
 * fixtures/records/records.jsonl and one that expects none names numbers that are not.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { Intent, type RecordLookup } from "@voxtrail/core";
import { JsonlRecordLookup } from "@voxtrail/providers";

/** The corpus file, and the records its scripts refer to. */
export const CORPUS_FILE = fileURLToPath(new URL("../../fixtures/accuracy/scripts.json", import.meta.url));
export const RECORDS_FILE = fileURLToPath(new URL("../../fixtures/records/records.jsonl", import.meta.url));

/** Which half a script is in: `held-out` scripts are measured, never tuned on. */
export const SPLITS = ["tuning", "held-out"] as const;
export type Split = (typeof SPLITS)[number];

/** What each script exercises; every one of these is in both halves. */
export const PHENOMENA = [
  "grouped-numbers",
  "oh-for-zero",
  "number-correction",
  "day-correction",
  "spelled-name",
  "cancellation",
  "reschedule",
  "hang-up",
  "no-match",
] as const;
export type Phenomenon = (typeof PHENOMENA)[number];

/** The numbers a voicemail can carry, as the reasoner's entities name them. */
export const NUMBER_KINDS = ["orderNumber", "accountNumber", "callbackNumber"] as const;
export type NumberKind = (typeof NUMBER_KINDS)[number];

/** The facts a script states: intent, each number with its kind, the (last) day, and the record they lead to. */
export interface ExpectedFacts {
  intent: Intent;
  numbers: { kind: NumberKind; value: string }[];
  day?: string;
  /** The id of the business record the numbers match, or `null` when none should match. */
  record: string | null;
}

/** One voicemail script of the corpus. */
export interface AccuracyScript {
  id: string;
  split: Split;
  phenomena: Phenomenon[];
  /** What the caller says: flite's input and the WER reference. */
  text: string;
  expected: ExpectedFacts;
}

/** The corpus file's content. */
export interface AccuracyCorpus {
  /** Seeds the line noise, so the same corpus always gives the same audio. */
  noiseSeed: number;
  scripts: AccuracyScript[];
}

/** Fewest scripts the corpus must have. */
export const MIN_SCRIPTS = 24;

const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/** Reads the corpus and checks it ({@link corpusProblems}); throws listing every problem found. */
export async function loadAccuracyCorpus(
  file = CORPUS_FILE,
  records?: RecordLookup,
): Promise<AccuracyCorpus> {
  const corpus = JSON.parse(await readFile(file, "utf8")) as AccuracyCorpus;
  const problems = await corpusProblems(corpus, records ?? (await JsonlRecordLookup.fromFile(RECORDS_FILE)));
  if (problems.length > 0) throw new Error(`${file} is not a valid corpus:\n  ${problems.join("\n  ")}`);
  return corpus;
}

/**
 * Everything wrong with a corpus, as sentences (none: valid): at least {@link MIN_SCRIPTS}
 * scripts with unique ids, known intents, number kinds, days and phenomena; exactly half of them
 * held out; every phenomenon in both halves; and each script's numbers finding its expected record
 * in `records` (or, with `record: null`, finding none).
 */
export async function corpusProblems(corpus: AccuracyCorpus, records: RecordLookup): Promise<string[]> {
  const problems: string[] = [];
  const { scripts } = corpus;
  if (!Number.isInteger(corpus.noiseSeed)) problems.push("noiseSeed must be an integer");
  if (scripts.length < MIN_SCRIPTS)
    problems.push(`${scripts.length} scripts; at least ${MIN_SCRIPTS} needed`);
  const heldOut = scripts.filter((script) => script.split === "held-out").length;
  if (heldOut * 2 !== scripts.length)
    problems.push(`${heldOut} of ${scripts.length} scripts held out, not half`);
  const ids = new Set<string>();
  for (const script of scripts) {
    if (ids.has(script.id)) problems.push(`${script.id}: duplicate id`);
    ids.add(script.id);
    problems.push(...(await scriptProblems(script, records)).map((problem) => `${script.id}: ${problem}`));
  }
  for (const split of SPLITS) {
    for (const phenomenon of PHENOMENA) {
      if (!scripts.some((script) => script.split === split && script.phenomena.includes(phenomenon)))
        problems.push(`no ${split} script has ${phenomenon}`);
    }
  }
  return problems;
}

async function scriptProblems(script: AccuracyScript, records: RecordLookup): Promise<string[]> {
  const problems: string[] = [];
  const { expected } = script;
  if (!SPLITS.includes(script.split)) problems.push(`unknown split ${script.split}`);
  if (script.text.trim() === "") problems.push("empty text");
  for (const phenomenon of script.phenomena) {
    if (!PHENOMENA.includes(phenomenon)) problems.push(`unknown phenomenon ${phenomenon}`);
  }
  if (!Intent.safeParse(expected.intent).success) problems.push(`unknown intent ${expected.intent}`);
  if (expected.day !== undefined && !DAYS.includes(expected.day))
    problems.push(`unknown day ${expected.day}`);
  const entities: Partial<Record<NumberKind, string>> = {};
  for (const { kind, value } of expected.numbers) {
    if (!NUMBER_KINDS.includes(kind)) problems.push(`unknown number kind ${kind}`);
    if (!/^\d+$/.test(value)) problems.push(`${kind} ${value} is not digits`);
    if (entities[kind] !== undefined) problems.push(`two ${kind}s`);
    entities[kind] = value;
  }
  const found = (await records.find(entities))?.record.id ?? null;
  if (found !== expected.record) problems.push(`numbers find record ${found}, expected ${expected.record}`);
  return problems;
}
