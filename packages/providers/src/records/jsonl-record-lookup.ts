import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import {
  BusinessRecord,
  type Entities,
  InvalidInput,
  LOCAL_BOUNDARY,
  type Processor,
  type RecordLookup,
  type RedactionTerms,
  type ReferenceLengths,
  redactionTermsFromRecords,
} from "@voxtrail/core";
import { REFERENCE_DIGITS } from "../transcription/number-length";

/** The entity a record was found by. */
export type MatchedOn = "orderNumber" | "accountNumber" | "callbackNumber";

/** Digits of a phone number compared: the last ten (country code dropped), or the last seven. */
const FULL_PHONE_DIGITS = 10;
const LOCAL_PHONE_DIGITS = 7;

/**
 * Business records (orders and accounts) from JSON Lines text, one `BusinessRecord` per line, held
 * in memory and indexed by order number, account number and phone number. Nothing leaves the
 * process (boundary `local`); the processor's version is the first 12 hex digits of the text's
 * sha256, so lineage says exactly which records were searched.
 *
 * Order and account numbers are compared without spaces, dashes or case. Phone numbers are
 * compared on digits only: a 10-digit (or 11-digit, leading 1) callback number against the last
 * ten digits of a record's phone, a 7-digit one against the last seven. When several records share
 * a number, the first in the file wins.
 *
 * @example
 * const records = await JsonlRecordLookup.fromFile("fixtures/records/records.jsonl");
 * await records.find({ orderNumber: "4271" }); // { matchedOn: "orderNumber", record: { type: "order", id: "ord-4271", ... } }
 * await records.find({ orderNumber: "6609", callbackNumber: "5550000000" }); // undefined
 */
export class JsonlRecordLookup implements RecordLookup {
  readonly processor: Processor;
  readonly #byOrder = new Map<string, BusinessRecord>();
  readonly #byAccount = new Map<string, BusinessRecord>();
  readonly #byPhone = new Map<string, BusinessRecord>();
  #lengths: ReferenceLengths | undefined;
  readonly #terms: RedactionTerms;

  /**
   * Parses and indexes `jsonl`; blank lines are skipped.
   *
   * @throws InvalidInput naming the first line that is not JSON or not a `BusinessRecord`, and
   * what is wrong with it (never the line's content).
   */
  constructor(jsonl: string) {
    this.processor = {
      provider: "jsonl-records",
      model: "records.jsonl",
      version: createHash("sha256").update(jsonl).digest("hex").slice(0, 12),
      boundary: LOCAL_BOUNDARY,
    };
    const records: BusinessRecord[] = [];
    jsonl.split(/\r?\n/).forEach((line, index) => {
      if (line.trim() === "") return;
      const record = parseLine(line, index + 1);
      records.push(record);
      if (record.orderNumber) setFirst(this.#byOrder, reference(record.orderNumber), record);
      if (record.accountNumber) setFirst(this.#byAccount, reference(record.accountNumber), record);
      const phone = record.phone?.replace(/\D/g, "") ?? "";
      if (phone.length >= FULL_PHONE_DIGITS) setFirst(this.#byPhone, phone.slice(-FULL_PHONE_DIGITS), record);
      if (phone.length >= LOCAL_PHONE_DIGITS)
        setFirst(this.#byPhone, phone.slice(-LOCAL_PHONE_DIGITS), record);
    });
    this.#terms = redactionTermsFromRecords(records);
  }

  /** The records' numbers and callers' names, for the redactor (docs/redaction.md). */
  redactionTerms(): RedactionTerms {
    return this.#terms;
  }

  /** Reads and indexes a JSON Lines file. */
  static async fromFile(path: string): Promise<JsonlRecordLookup> {
    return new JsonlRecordLookup(await readFile(path, "utf8"));
  }

  /**
   * How many digits the order numbers have, and the account numbers, for each kind whose numbers
   * are all digits (spaces and dashes aside) of one length: what a transcriber may decode a number
   * one digit off again to (`PocketsphinxOptions.referenceLengths`). A kind with no numbers, with
   * letters in one, with two lengths, or with a length outside 2 to 20 digits is left out.
   *
   * @example
   * new JsonlRecordLookup(text).referenceLengths(); // { order: 4, account: 4 }
   */
  referenceLengths(): ReferenceLengths {
    // The index is filled once, in the constructor: every reasoned voicemail asks, so count once.
    if (this.#lengths === undefined) {
      const order = sharedDigitCount(this.#byOrder.keys());
      const account = sharedDigitCount(this.#byAccount.keys());
      this.#lengths = {
        ...(order === undefined ? {} : { order }),
        ...(account === undefined ? {} : { account }),
      };
    }
    return { ...this.#lengths };
  }

  /** {@link referenceLengths}, as `RecordLookup.numberLengths` asks for it. */
  async numberLengths(): Promise<ReferenceLengths> {
    return this.referenceLengths();
  }

  /** The first record matching the order number, else the account number, else the callback number. */
  async find(entities: Entities): Promise<{ matchedOn: MatchedOn; record: BusinessRecord } | undefined> {
    const candidates: [MatchedOn, BusinessRecord | undefined][] = [
      ["orderNumber", entities.orderNumber ? this.#byOrder.get(reference(entities.orderNumber)) : undefined],
      [
        "accountNumber",
        entities.accountNumber ? this.#byAccount.get(reference(entities.accountNumber)) : undefined,
      ],
      [
        "callbackNumber",
        entities.callbackNumber ? this.#byPhone.get(phoneKey(entities.callbackNumber)) : undefined,
      ],
    ];
    for (const [matchedOn, record] of candidates) {
      if (record) return { matchedOn, record };
    }
    return undefined;
  }
}

function parseLine(line: string, lineNumber: number): BusinessRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new InvalidInput(`records line ${lineNumber}: not valid JSON`);
  }
  const parsed = BusinessRecord.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(record)"}: ${issue.message}`,
    );
    throw new InvalidInput(`records line ${lineNumber}: not a business record (${problems.join("; ")})`);
  }
  return parsed.data;
}

function setFirst(index: Map<string, BusinessRecord>, key: string, record: BusinessRecord): void {
  if (key !== "" && !index.has(key)) index.set(key, record);
}

/**
 * The one length of `numbers` when all are digits and share it, and a transcriber can refit to it;
 * undefined otherwise or when there are none.
 */
function sharedDigitCount(numbers: Iterable<string>): number | undefined {
  const lengths = new Set<number>();
  for (const number of numbers) {
    if (!/^\d+$/.test(number)) return undefined;
    lengths.add(number.length);
  }
  const [length] = lengths;
  if (lengths.size !== 1 || length === undefined) return undefined;
  return length >= REFERENCE_DIGITS.min && length <= REFERENCE_DIGITS.max ? length : undefined;
}

/** An order or account number as compared: upper case, letters and digits only. */
function reference(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

/** The phone index key for a callback number: its last ten digits, or its last seven when that is all. */
function phoneKey(callbackNumber: string): string {
  const digits = callbackNumber.replace(/\D/g, "");
  return digits.length >= FULL_PHONE_DIGITS ? digits.slice(-FULL_PHONE_DIGITS) : digits;
}
