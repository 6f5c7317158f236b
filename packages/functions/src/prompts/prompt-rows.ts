import { createHash } from "node:crypto";
import {
  type BadPromptRow,
  DEFAULT_PROMPT_FORMAT,
  InvalidPromptRow,
  PROMPT_FORMATS,
  PromptFormatUnknown,
  PromptIdDuplicate,
  PromptIdInvalid,
  PromptLanguageUnsupported,
  PromptManifestUnreadable,
  type PromptRow,
  PromptRowMalformed,
  PromptTextControlCharacters,
  PromptTextEmpty,
  PromptTextInvalidUtf8,
  PromptTextTooLong,
} from "@voxtrail/core";
import { speaksLanguage } from "@voxtrail/workflow";
import { MAX_MANIFEST_LINE_BYTES, type ManifestLine } from "./manifest-lines";

/**
 * Longest prompt text accepted, in characters (code points). Sonic takes one transcript per
 * request and Amazon Connect plays prompts of at most 5 minutes; 1,000 characters is about a
 * minute of speech, well inside both, and keeps a row far below the 256 KB state limit.
 */
export const MAX_PROMPT_TEXT_CHARS = 1000;

/** What the configured synthesizer speaks, to check each row's language against. */
export interface SpokenLanguages {
  /** The synthesizer's name (its choice, e.g. `local`), for messages. */
  synthesizer: string;
  /** The languages it speaks (ISO 639-1 codes). */
  languages: readonly string[];
  /** The language a row that names none is spoken in. */
  defaultLanguage: string;
}

/** The manifest formats, by how the manifest's name ends. */
export type ManifestType = "csv" | "jsonl";

/** The columns (CSV) or fields (JSON Lines) a manifest row may have. */
const FIELDS = ["id", "text", "voice", "language", "format"] as const;
type Field = (typeof FIELDS)[number];
type RawRow = Partial<Record<Field, string>>;

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional formatting
// characters (which make text display as something other than what is spoken).
const CONTROL = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

/** The manifest type its key names (`.csv`, `.jsonl` or `.ndjson`); anything else is `PromptManifestUnreadable`. */
export function manifestTypeOf(key: string): ManifestType {
  const lower = key.toLowerCase();
  if (lower.endsWith(".csv")) return "csv";
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "jsonl";
  throw new PromptManifestUnreadable("a prompt manifest must be .csv, .jsonl or .ndjson");
}

/**
 * Validates a manifest's lines one at a time: each line is decoded on its own (a line that is not
 * UTF-8 is a bad row, the next line is fine), parsed as a CSV record under the header row or as a
 * JSON object, and checked. Blank lines are skipped. Each row comes out valid (`ok`) or as a bad
 * row naming its line and reason; ids must be unique (ignoring case: they name files). A line
 * manifestLines found too long is a bad row (`PromptTextTooLong`); so is, given `spoken`, a row
 * whose language the synthesizer does not speak (`PromptLanguageUnsupported`). A CSV header that
 * is too long, unreadable or lacks `id` and `text` is `PromptManifestUnreadable`.
 *
 * @example
 * const validator = new PromptRowValidator("csv");
 * for await (const line of manifestLines(body)) {
 *   const row = validator.check(line);
 *   if (row?.ok) rows.push(row.row); else if (row) bad.push(row.bad);
 * }
 */
export class PromptRowValidator {
  readonly #seen = new Map<string, number>();
  readonly #decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  #columns: Field[] | undefined;

  /** `spoken`, when given, makes a row in a language the synthesizer does not speak a bad row. */
  constructor(
    private readonly type: ManifestType,
    private readonly maxTextChars: number = MAX_PROMPT_TEXT_CHARS,
    private readonly spoken?: SpokenLanguages,
  ) {}

  /** Checks one line: a row, or `undefined` for the header and blank lines. */
  check(input: ManifestLine): { ok: true; row: PromptRow } | { ok: false; bad: BadPromptRow } | undefined {
    if (input.tooLongBytes !== undefined) return this.#tooLong(input.line, input.tooLongBytes);
    let text: string;
    try {
      text = this.#decoder.decode(input.bytes);
    } catch {
      if (this.type === "csv" && this.#columns === undefined) {
        throw new PromptManifestUnreadable("the CSV header row is not valid UTF-8");
      }
      return bad(input.line, undefined, new PromptTextInvalidUtf8(`line ${input.line} is not valid UTF-8`));
    }
    if (text.trim() === "") return undefined;
    if (this.type === "csv" && this.#columns === undefined) {
      this.#columns = headerColumns(text);
      return undefined;
    }
    let raw: RawRow | undefined;
    try {
      raw =
        this.type === "csv" ? csvRow(text, this.#columns as Field[], input.line) : jsonRow(text, input.line);
      return { ok: true, row: this.#validate(raw, input.line) };
    } catch (error) {
      if (error instanceof InvalidPromptRow) return bad(input.line, raw?.id, error);
      throw error;
    }
  }

  /** A line manifestLines did not keep: a bad row, or, for a CSV's header, the whole manifest. */
  #tooLong(line: number, bytes: number): { ok: false; bad: BadPromptRow } {
    const over = `${bytes} bytes, over the ${MAX_MANIFEST_LINE_BYTES}-byte limit for one line`;
    if (this.type === "csv" && this.#columns === undefined) {
      throw new PromptManifestUnreadable(
        `the CSV header row is ${over}: the first line must be the header, naming the columns`,
      );
    }
    return bad(
      line,
      undefined,
      new PromptTextTooLong(
        `line ${line} is ${over}: a prompt's text is at most ${this.maxTextChars} characters; shorten it or split it into several prompts`,
      ),
    );
  }

  #validate(raw: RawRow, line: number): PromptRow {
    const { id, text } = raw;
    if (id === undefined || text === undefined) {
      throw new PromptRowMalformed(`line ${line} has no ${id === undefined ? "id" : "text"}`);
    }
    if (!ID.test(id)) {
      throw new PromptIdInvalid(
        `line ${line}: an id is 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      );
    }
    const earlier = this.#seen.get(id.toLowerCase());
    if (earlier !== undefined)
      throw new PromptIdDuplicate(`line ${line}: id ${id} is already used on line ${earlier}`);
    this.#seen.set(id.toLowerCase(), line);
    if (text.trim() === "") throw new PromptTextEmpty(`line ${line}: the prompt's text is empty`);
    for (const field of ["text", "voice", "language"] as const) {
      if (raw[field] !== undefined && CONTROL.test(raw[field])) {
        throw new PromptTextControlCharacters(`line ${line}: the ${field} holds control characters`);
      }
    }
    const chars = [...text].length;
    if (chars > this.maxTextChars) {
      throw new PromptTextTooLong(
        `line ${line}: the text has ${chars} characters; the limit is ${this.maxTextChars}`,
      );
    }
    const format = raw.format === undefined || raw.format === "" ? DEFAULT_PROMPT_FORMAT : raw.format;
    if (!Object.hasOwn(PROMPT_FORMATS, format)) {
      throw new PromptFormatUnknown(
        `line ${line}: the format must be one of ${Object.keys(PROMPT_FORMATS).join(", ")}`,
      );
    }
    const voice = raw.voice || undefined;
    const language = raw.language || undefined;
    if (this.spoken) checkLanguage(this.spoken, language, line);
    const row = { id, text: text.trim(), voice, language, format: format as PromptRow["format"] };
    return {
      line,
      id,
      text: row.text,
      ...(voice ? { voice } : {}),
      ...(language ? { language } : {}),
      format: row.format,
      rowHash: promptRowHash(row),
    };
  }
}

/**
 * A prompt's identity: sha256 of its id, text, voice, language and format. Rows that differ in
 * any of them are different prompts; the line number is not part of it.
 */
export function promptRowHash(row: {
  id: string;
  text: string;
  voice?: string | undefined;
  language?: string | undefined;
  format: string;
}): string {
  const identity = JSON.stringify([row.id, row.text, row.voice ?? "", row.language ?? "", row.format]);
  return createHash("sha256").update(identity).digest("hex");
}

/**
 * `PromptLanguageUnsupported` when the row's language (or the default, for a row without one) is
 * not one `spoken` lists. The message quotes the language (at most 35 characters: a tag, not text).
 */
function checkLanguage(spoken: SpokenLanguages, language: string | undefined, line: number): void {
  const asked = language ?? spoken.defaultLanguage;
  if (speaksLanguage(spoken.languages, asked)) return;
  const which = language === undefined ? "the default language" : "the language";
  throw new PromptLanguageUnsupported(
    `line ${line}: ${which} ${JSON.stringify(asked.slice(0, 35))} is not one the synthesizer ` +
      `${spoken.synthesizer} speaks (${spoken.languages.join(", ")}): choose a synthesizer that ` +
      `speaks it, or remove the row`,
  );
}

function bad(
  line: number,
  id: string | undefined,
  error: InvalidPromptRow,
): { ok: false; bad: BadPromptRow } {
  return {
    ok: false,
    bad: {
      line,
      ...(id !== undefined && ID.test(id) ? { id } : {}),
      error: error.name,
      message: error.message,
    },
  };
}

function headerColumns(text: string): Field[] {
  let names: string[];
  try {
    names = csvFields(text.replace(/^\uFEFF/, ""), 1).map((name) => name.trim().toLowerCase());
  } catch {
    throw new PromptManifestUnreadable("the CSV header row is not a CSV record");
  }
  const unknown = names.filter((name) => !(FIELDS as readonly string[]).includes(name));
  if (
    unknown.length > 0 ||
    !names.includes("id") ||
    !names.includes("text") ||
    new Set(names).size !== names.length
  ) {
    throw new PromptManifestUnreadable(
      `the CSV header must name the columns id and text, and optionally ${FIELDS.slice(2).join(", ")}, each once`,
    );
  }
  return names as Field[];
}

function csvRow(text: string, columns: Field[], line: number): RawRow {
  const fields = csvFields(text, line);
  if (fields.length !== columns.length) {
    throw new PromptRowMalformed(
      `line ${line} has ${fields.length} fields; the header names ${columns.length}`,
    );
  }
  return Object.fromEntries(columns.map((column, index) => [column, fields[index]])) as RawRow;
}

/** The fields of one CSV record (RFC 4180 quoting within the line; a quoted newline is not supported). */
function csvFields(text: string, line: number): string[] {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (text[at] === '"') {
      let value = "";
      at += 1;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) {
          throw new PromptRowMalformed(
            `line ${line} ends inside a quoted field: a quoted field cannot span lines (newlines inside quotes are not supported), so put its text on one line and close the quote`,
          );
        }
        value += text.slice(at, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          at = quote + 2;
          continue;
        }
        at = quote + 1;
        break;
      }
      fields.push(value);
      if (at === text.length) return fields;
      if (text[at] !== ",") throw new PromptRowMalformed(`line ${line} has text after a closing quote`);
      at += 1;
    } else {
      const comma = text.indexOf(",", at);
      const value = text.slice(at, comma < 0 ? undefined : comma);
      if (value.includes('"'))
        throw new PromptRowMalformed(`line ${line} has a quote inside an unquoted field`);
      fields.push(value);
      if (comma < 0) return fields;
      at = comma + 1;
    }
  }
}

function jsonRow(text: string, line: number): RawRow {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new PromptRowMalformed(`line ${line} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PromptRowMalformed(`line ${line} is not a JSON object`);
  }
  const raw: RawRow = {};
  for (const field of FIELDS) {
    const fieldValue = (value as Record<string, unknown>)[field];
    if (fieldValue === undefined || fieldValue === null) continue;
    if (typeof fieldValue !== "string")
      throw new PromptRowMalformed(`line ${line}: ${field} must be a string`);
    raw[field] = fieldValue;
  }
  return raw;
}
