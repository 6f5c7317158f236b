import * as z from "zod/mini";
import type { Transcript } from "../transcript";
import type { BusinessRecord, VoicemailRecord } from "../voicemail-record";
import { findNumberRuns, type NumberRun, type TextToken, tokenizeWithSpans } from "./spoken-numbers";

/**
 * The kinds of caller data our redactor removes (docs/redaction.md): the ones Amazon Transcribe's
 * PII types do not cover (the business's order and account numbers), callers' names as the
 * business records spell them, phone numbers, and any other long number a caller says.
 */
export const RedactedKind = z.enum(["phone", "order-number", "account-number", "number", "name"]);
export type RedactedKind = z.infer<typeof RedactedKind>;

/** How many of one kind a redaction removed: what lineage and reports may carry (never the values). */
export const RedactionCount = z.object({
  kind: RedactedKind,
  count: z.number().check(z.int(), z.positive()),
});
export type RedactionCount = z.infer<typeof RedactionCount>;

/** What the redactor looks for besides the patterns: the numbers and names the records define. */
export interface RedactionTerms {
  /** Known numbers, digits only (a phone's last 10 and last 7 digits are both looked for). */
  numbers: readonly { kind: Exclude<RedactedKind, "name" | "number">; digits: string }[];
  /**
   * Callers' full names (the records'): each is removed where its words stand one after another
   * ("Maria Lopez"), never a part alone, so a record's "Bill Smith" leaves "your bill" be. A name
   * of one word is not looked for.
   */
  names: readonly string[];
  /**
   * Names whose parts are removed one by one too ("Maria" alone): the record the call was matched
   * to and the name the caller gave ({@link termsOfRecord}).
   */
  nameParts?: readonly string[];
  /**
   * A run of number words this long or longer (in digits) is removed whatever it is; the default,
   * 4, is the records' shortest reference. Numbers said as a clock time ("at ten thirty") are kept.
   */
  minDigits?: number;
}

/**
 * How a removed span reads: `tag` writes `[PHONE]`, `[ORDER_NUMBER]`, ... (stored text);
 * `spoken` writes what a reply can say aloud ("your order", "your number") and drops names.
 */
export type RedactionStyle = "tag" | "spoken";

/** One span to remove. */
export interface RedactionSpan {
  start: number;
  end: number;
  kind: RedactedKind;
}

const TAGS: Record<RedactedKind, string> = {
  phone: "[PHONE]",
  "order-number": "[ORDER_NUMBER]",
  "account-number": "[ACCOUNT_NUMBER]",
  number: "[NUMBER]",
  name: "[NAME]",
};

/** The terms the business records define: their phones, order and account numbers, and names. */
export function redactionTermsFromRecords(records: readonly BusinessRecord[]): RedactionTerms {
  const numbers: { kind: "phone" | "order-number" | "account-number"; digits: string }[] = [];
  const names: string[] = [];
  for (const record of records) {
    const order = record.orderNumber?.replace(/\D/g, "");
    const account = record.accountNumber?.replace(/\D/g, "");
    const phone = record.phone?.replace(/\D/g, "");
    if (order) numbers.push({ kind: "order-number", digits: order });
    if (account) numbers.push({ kind: "account-number", digits: account });
    if (phone && phone.length >= 7) {
      numbers.push({ kind: "phone", digits: phone.slice(-10) });
      numbers.push({ kind: "phone", digits: phone.slice(-7) });
    }
    if (record.customerName) names.push(record.customerName);
  }
  return { numbers, names };
}

/** Two sets of terms as one. */
export function mergeTerms(...terms: readonly RedactionTerms[]): RedactionTerms {
  const minimums = terms.map((term) => term.minDigits).filter((value) => value !== undefined);
  const nameParts = terms.flatMap((term) => term.nameParts ?? []);
  return {
    numbers: terms.flatMap((term) => term.numbers),
    names: terms.flatMap((term) => term.names),
    ...(nameParts.length > 0 ? { nameParts } : {}),
    ...(minimums.length > 0 ? { minDigits: Math.min(...minimums) } : {}),
  };
}

/**
 * The spans of `text` to remove: each run of number words that says a known number, or that is
 * `minDigits` long or longer (not a clock time), each full name of `terms` and each part of its
 * `nameParts`. `language` is the text's: Spanish ("es", "es-US") reads "once" as 11 beside another
 * number word.
 *
 * @example
 * findRedactions("order forty two seventy one", terms); // [{ start: 6, end: 27, kind: "order-number" }]
 */
export function findRedactions(text: string, terms: RedactionTerms, language = "en"): RedactionSpan[] {
  const tokens = tokenizeWithSpans(text);
  const spans: RedactionSpan[] = [];
  for (const run of findNumberRuns(text, tokens, language)) {
    const kind = numberKind(run, tokens, terms);
    if (kind !== undefined) spans.push({ start: run.start, end: run.end, kind });
  }
  spans.push(...nameSpans(text, tokens, terms));
  return mergeSpans(spans);
}

/**
 * `text` with the spans {@link findRedactions} finds removed, and how many of each kind.
 *
 * @example
 * redactText("Hi, this is Maria Lopez, order 4271.", terms).text; // "Hi, this is [NAME], order [ORDER_NUMBER]."
 * redactText("Hi Maria, this is Acme about order 4271.", terms, "spoken").text; // "Hi, this is Acme about your order."
 */
export function redactText(
  text: string,
  terms: RedactionTerms,
  style: RedactionStyle = "tag",
  language = "en",
): { text: string; redactions: RedactionCount[] } {
  const spanish = language.toLowerCase().startsWith("es");
  const spans = findRedactions(text, terms, language);
  let out = "";
  let at = 0;
  for (const span of spans) {
    let before = text.slice(at, span.start);
    let replacement = TAGS[span.kind];
    if (style === "spoken") ({ before, replacement } = spokenReplacement(before, span.kind, spanish));
    out += before + replacement;
    at = span.end;
  }
  out += text.slice(at);
  if (style === "spoken") out = tidySpoken(out);
  return { text: out, redactions: countKinds(spans) };
}

/**
 * The transcript with every word inside a redacted span replaced by its tag (timings kept), the
 * text redacted, and the counts; read in the transcript's language.
 */
export function redactTranscript(
  transcript: Transcript,
  terms: RedactionTerms,
): { transcript: Transcript; redactions: RedactionCount[] } {
  const { text, redactions } = redactText(transcript.text, terms, "tag", transcript.language);
  let joined = "";
  const starts: number[] = [];
  for (const word of transcript.words) {
    if (joined.length > 0) joined += " ";
    starts.push(joined.length);
    joined += word.word;
  }
  const spans = findRedactions(joined, terms, transcript.language);
  const words = transcript.words.map((word, index) => {
    const start = starts[index] ?? 0;
    const end = start + word.word.length;
    const span = spans.find((candidate) => candidate.start < end && start < candidate.end);
    return span ? { ...word, word: TAGS[span.kind] } : word;
  });
  return { transcript: { ...transcript, text, words }, redactions };
}

/**
 * A voicemail record with the caller's data removed: the entities that identify the caller or
 * their order or account become tags, the matched business record keeps only its type, status
 * and non-identifying fields, the summary (written in English) is redacted as text and the reply
 * as speech in the reply's `language` ("your order", "su pedido"; "once" a number in Spanish); the
 * facts the reply states lose their values.
 */
export function redactVoicemailRecord(
  record: VoicemailRecord,
  terms: RedactionTerms,
  language = "en",
): { record: VoicemailRecord; redactions: RedactionCount[] } {
  const all = mergeTerms(terms, termsOfRecord(record));
  const counts: RedactionCount[][] = [];
  const entities = { ...record.entities };
  const entityKinds = {
    callbackNumber: "phone",
    orderNumber: "order-number",
    accountNumber: "account-number",
    callerName: "name",
  } as const;
  for (const [field, kind] of Object.entries(entityKinds) as [keyof typeof entityKinds, RedactedKind][]) {
    if (entities[field] !== undefined) {
      entities[field] = TAGS[kind];
      counts.push([{ kind, count: 1 }]);
    }
  }
  const summary = redactText(record.summary, all);
  const reply = redactText(record.replyText, all, "spoken", language);
  counts.push(summary.redactions, reply.redactions);
  const match =
    record.match.outcome === "found"
      ? { ...record.match, record: redactBusinessRecord(record.match.record, all) }
      : record.match;
  return {
    record: {
      ...record,
      entities,
      summary: summary.text,
      replyText: reply.text,
      match,
      ...(record.reply
        ? {
            reply: {
              ...record.reply,
              facts: record.reply.facts.map((fact) =>
                fact.fact === "day" || fact.fact === "time" ? fact : { ...fact, value: "[REDACTED]" },
              ),
            },
          }
        : {}),
    },
    redactions: sumCounts(...counts),
  };
}

/**
 * The terms one voicemail record adds: its entities and its matched business record, whose names
 * are removed part by part too (the caller is known to be that customer).
 */
export function termsOfRecord(record: VoicemailRecord): RedactionTerms {
  const found = record.match.outcome === "found" ? [record.match.record] : [];
  const { numbers, names } = redactionTermsFromRecords([
    ...found,
    {
      type: "order",
      id: "entities",
      ...(record.entities.orderNumber ? { orderNumber: record.entities.orderNumber } : {}),
      ...(record.entities.accountNumber ? { accountNumber: record.entities.accountNumber } : {}),
      ...(record.entities.callbackNumber ? { phone: record.entities.callbackNumber } : {}),
      ...(record.entities.callerName ? { customerName: record.entities.callerName } : {}),
    },
  ]);
  return { numbers, names, nameParts: names };
}

function redactBusinessRecord(record: BusinessRecord, terms: RedactionTerms): BusinessRecord {
  const out: BusinessRecord = { ...record, id: "[REDACTED]" };
  if (record.orderNumber !== undefined) out.orderNumber = TAGS["order-number"];
  if (record.accountNumber !== undefined) out.accountNumber = TAGS["account-number"];
  if (record.phone !== undefined) out.phone = TAGS.phone;
  if (record.customerName !== undefined) out.customerName = TAGS.name;
  for (const [field, value] of Object.entries(out)) {
    if (
      typeof value === "string" &&
      !["type", "id", "orderNumber", "accountNumber", "phone", "customerName"].includes(field)
    )
      out[field] = redactText(value, terms).text;
  }
  return out;
}

function numberKind(
  run: NumberRun,
  tokens: readonly TextToken[],
  terms: RedactionTerms,
): RedactedKind | undefined {
  let best: { kind: RedactedKind; length: number } | undefined;
  for (const known of terms.numbers) {
    if (
      known.digits.length > 0 &&
      run.digits.includes(known.digits) &&
      known.digits.length > (best?.length ?? 0)
    )
      best = { kind: known.kind, length: known.digits.length };
  }
  if (best) return best.kind;
  if (run.digits.length < (terms.minDigits ?? 4)) return undefined;
  if (isClockTime(run, tokens)) return undefined;
  return run.digits.length >= 7 ? "phone" : "number";
}

/** "at ten thirty", "ten thirty am", "four fifteen o'clock": a time said as numbers, not a reference. */
function isClockTime(run: NumberRun, tokens: readonly TextToken[]): boolean {
  if (run.digits.length > 4) return false;
  const before = tokens[run.first - 1]?.word;
  const after = tokens[run.last + 1]?.word;
  return before === "at" || ["am", "pm", "o'clock", "oclock"].includes(after ?? "");
}

/** A full name's words said together: spaces or a hyphen between them, no sentence break. */
const NAME_JOINER = /^[\s-]*$/;

function nameSpans(text: string, tokens: readonly TextToken[], terms: RedactionTerms): RedactionSpan[] {
  const words = (name: string) =>
    tokenizeWithSpans(name)
      .map((part) => part.word)
      .filter((word) => !/^\d+$/.test(word));
  const bare = (token: TextToken | undefined) => token?.word.replace(/'s$/, "");
  const spans: RedactionSpan[] = [];
  for (const name of terms.names) {
    const parts = words(name);
    if (parts.length < 2) continue;
    for (let at = 0; at + parts.length <= tokens.length; at++) {
      const matches = parts.every((part, offset) => {
        const token = tokens[at + offset] as TextToken;
        const joined =
          offset === 0 || NAME_JOINER.test(text.slice(tokens[at + offset - 1]?.end, token.start));
        return joined && (offset === parts.length - 1 ? bare(token) : token.word) === part;
      });
      const first = tokens[at] as TextToken;
      const last = tokens[at + parts.length - 1] as TextToken;
      if (matches) spans.push({ start: first.start, end: last.end, kind: "name" });
    }
  }
  const parts = new Set((terms.nameParts ?? []).flatMap(words).filter((part) => part.length >= 2));
  for (const token of tokens)
    if (parts.has(token.word) || parts.has(bare(token) ?? ""))
      spans.push({ start: token.start, end: token.end, kind: "name" });
  return spans;
}

/** Sorted, overlapping or touching same-kind spans joined ("Maria Lopez" is one name). */
function mergeSpans(spans: RedactionSpan[]): RedactionSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: RedactionSpan[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last && span.start <= last.end) {
      last.end = Math.max(last.end, span.end);
      continue;
    }
    // Two name parts one space apart are one name.
    if (last && last.kind === "name" && span.kind === "name" && span.start - last.end <= 1) {
      last.end = span.end;
      continue;
    }
    merged.push({ ...span });
  }
  return merged;
}

/** What a reply says instead of a removed span, and the text before it adjusted to fit. */
function spokenReplacement(
  before: string,
  kind: RedactedKind,
  spanish: boolean,
): { before: string; replacement: string } {
  if (kind === "name") return { before: before.replace(/\s+$/, ""), replacement: "" };
  const reference = spanish
    ? /\b(el |la |su )?(pedido|cuenta)(\s+(n[u\u00fa]mero|no\.?|#))?\s*$/iu.exec(before)
    : /\b(order|account)(\s+(number|no\.?|#))?\s*$/i.exec(before);
  if (reference && (kind === "order-number" || kind === "account-number" || kind === "number")) {
    const head = before.slice(0, reference.index).replace(spanish ? /\bsu\s+$/i : /\byour\s+$/i, "");
    const noun = (spanish ? reference[2] : reference[1])?.toLowerCase();
    return { before: head, replacement: spanish ? `su ${noun}` : `your ${noun}` };
  }
  if (spanish) return { before, replacement: kind === "phone" ? "su número" : "el número que nos dio" };
  return { before, replacement: kind === "phone" ? "your number" : "the number you gave" };
}

function tidySpoken(text: string): string {
  return text
    .replace(/\s+([,.;:!?])/g, "$1")
    .replace(/,(\s*,)+/g, ",")
    .replace(/\s{2,}/g, " ")
    .trim();
}

function countKinds(spans: readonly RedactionSpan[]): RedactionCount[] {
  return sumCounts(spans.map((span) => ({ kind: span.kind, count: 1 })));
}

/** Counts of each kind added up, in `RedactedKind`'s order. */
export function sumCounts(...lists: readonly (readonly RedactionCount[])[]): RedactionCount[] {
  const totals = new Map<RedactedKind, number>();
  for (const list of lists)
    for (const { kind, count } of list) totals.set(kind, (totals.get(kind) ?? 0) + count);
  return RedactedKind.options
    .filter((kind) => totals.has(kind))
    .map((kind) => ({ kind, count: totals.get(kind) ?? 0 }));
}
