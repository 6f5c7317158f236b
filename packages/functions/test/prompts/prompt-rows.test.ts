import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { BadPromptRow, PromptRow } from "@voxtrail/core";
import { describe, expect, it } from "vitest";
import { MAX_MANIFEST_LINE_BYTES, manifestLines } from "../../src/prompts/manifest-lines";
import {
  type ManifestType,
  manifestTypeOf,
  PromptRowValidator,
  promptRowHash,
} from "../../src/prompts/prompt-rows";

const FIXTURES = fileURLToPath(new URL("../../../../fixtures/bad/prompts/", import.meta.url));

async function validate(
  body: Uint8Array | Iterable<Uint8Array>,
  type: ManifestType,
): Promise<{ rows: PromptRow[]; bad: BadPromptRow[] }> {
  const validator = new PromptRowValidator(type);
  const rows: PromptRow[] = [];
  const bad: BadPromptRow[] = [];
  const chunks = body instanceof Uint8Array ? [body] : body;
  for await (const line of manifestLines(Readable.from(chunks))) {
    const checked = validator.check(line);
    if (checked?.ok) rows.push(checked.row);
    else if (checked) bad.push(checked.bad);
  }
  return { rows, bad };
}

describe("manifestLines", () => {
  it("numbers lines across chunk boundaries, strips CR, keeps the last line without a newline", async () => {
    const lines: Array<[number, string]> = [];
    const chunks = ["a,b\r", "\nc", "d\n\ne", "f"].map((text) => Buffer.from(text));
    for await (const { line, bytes } of manifestLines(Readable.from(chunks))) {
      lines.push([line, bytes.toString()]);
    }
    expect(lines).toEqual([
      [1, "a,b"],
      [2, "cd"],
      [3, ""],
      [4, "ef"],
    ]);
  });
});

describe("manifestLines on a line longer than MAX_MANIFEST_LINE_BYTES", () => {
  const MiB = 1024 * 1024;

  /** A CSV whose line 3 is a row of about 50 MB, between two good rows, in chunks of 1 MiB. */
  function* withHugeRow(): Generator<Buffer> {
    yield Buffer.from("id,text\np1,Press one.\np2,");
    const chunk = Buffer.alloc(MiB, "a");
    for (let i = 0; i < 50; i++) yield chunk;
    yield Buffer.from("\r\np3,Press three.\n");
  }

  it("keeps none of it, and the validator makes it a bad row between the good ones", async () => {
    const validator = new PromptRowValidator("csv");
    const rows: PromptRow[] = [];
    const bad: BadPromptRow[] = [];
    for await (const line of manifestLines(Readable.from(withHugeRow()))) {
      expect(line.bytes.byteLength).toBeLessThanOrEqual(MAX_MANIFEST_LINE_BYTES);
      const checked = validator.check(line);
      if (checked?.ok) rows.push(checked.row);
      else if (checked) bad.push(checked.bad);
    }
    expect(rows.map((row) => [row.line, row.id])).toEqual([
      [2, "p1"],
      [4, "p3"],
    ]);
    expect(bad).toEqual([
      {
        line: 3,
        error: "PromptTextTooLong",
        message: `line 3 is ${50 * MiB + 3} bytes, over the ${MAX_MANIFEST_LINE_BYTES}-byte limit for one line: a prompt's text is at most 1000 characters; shorten it or split it into several prompts`,
      },
    ]);
  });

  it("marks a line one byte over the limit, and not one at the limit ending in CRLF", async () => {
    const atLimit = Buffer.alloc(MAX_MANIFEST_LINE_BYTES, "a");
    const lines = [];
    for await (const line of manifestLines(
      Readable.from([atLimit, Buffer.from("\r\n"), atLimit, Buffer.from("b\n")]),
    )) {
      lines.push({ line: line.line, bytes: line.bytes.byteLength, tooLongBytes: line.tooLongBytes });
    }
    expect(lines).toEqual([
      { line: 1, bytes: MAX_MANIFEST_LINE_BYTES, tooLongBytes: undefined },
      { line: 2, bytes: 0, tooLongBytes: MAX_MANIFEST_LINE_BYTES + 1 },
    ]);
  });

  it("refuses the whole manifest when it is a CSV's header row", async () => {
    const header = Buffer.concat([Buffer.from("id,text,"), Buffer.alloc(MAX_MANIFEST_LINE_BYTES, "x")]);
    await expect(validate([header, Buffer.from("\np1,Hi.\n")], "csv")).rejects.toThrow(
      expect.objectContaining({
        name: "PromptManifestUnreadable",
        message: expect.stringMatching(/^the CSV header row is \d+ bytes, over the 65536-byte limit/),
      }),
    );
  });
});

describe("PromptRowValidator on a quote left open at the end of a line", () => {
  it("makes that line a bad row saying a quoted field cannot span lines, and reads the next rows as rows", async () => {
    const csv = 'id,text\np2,"Press one\nfor sales, press two."\np4,Press four.\np5,"Press five."\n';
    const { rows, bad } = await validate(Buffer.from(csv), "csv");
    expect(rows.map((row) => [row.line, row.id, row.text])).toEqual([
      [4, "p4", "Press four."],
      [5, "p5", "Press five."],
    ]);
    expect(bad.map((row) => row.line)).toEqual([2, 3]);
    expect(bad[0]).toEqual({
      line: 2,
      error: "PromptRowMalformed",
      message:
        "line 2 ends inside a quoted field: a quoted field cannot span lines (newlines inside quotes are not supported), so put its text on one line and close the quote",
    });
    for (const row of bad) expect(row.message).not.toMatch(/Press|sales/);
  });
});

describe("PromptRowValidator on hostile CSV", () => {
  it("names each bad row's line and reason, and keeps every good row, bad bytes included", async () => {
    const { rows, bad } = await validate(await readFile(`${FIXTURES}hostile.csv`), "csv");
    expect(rows.map((row) => [row.line, row.id])).toEqual([
      [2, "welcome"],
      [4, "after-bad"],
      [15, "crlf"],
      [16, "last"],
    ]);
    expect(bad.map((row) => [row.line, row.error])).toEqual([
      [3, "PromptTextInvalidUtf8"],
      [5, "PromptTextEmpty"],
      [6, "PromptTextControlCharacters"],
      [7, "PromptIdDuplicate"],
      [8, "PromptIdDuplicate"],
      [9, "PromptIdInvalid"],
      [10, "PromptFormatUnknown"],
      [11, "PromptTextTooLong"],
      [12, "PromptRowMalformed"],
      [13, "PromptRowMalformed"],
    ]);
    expect(rows[0]).toMatchObject({
      text: "Thanks for calling, how can we help?",
      voice: "slt",
      format: "telephony",
    });
    expect(rows[3]?.format).toBe("telephony");
    expect(bad.find((row) => row.line === 7)).toMatchObject({
      id: "welcome",
      message: expect.stringMatching(/line 2/),
    });
    // An invalid id is not repeated in the report.
    expect(bad.find((row) => row.line === 9)?.id).toBeUndefined();
  });

  it("never quotes a row's text in a message", async () => {
    const { bad } = await validate(await readFile(`${FIXTURES}hostile.csv`), "csv");
    for (const row of bad) {
      expect(row.message).not.toMatch(/Press one|unknown format\.|aaaa|No closing|Caf/);
    }
  });

  it("refuses a header without id and text for the whole manifest", async () => {
    await expect(validate(await readFile(`${FIXTURES}bad-header.csv`), "csv")).rejects.toThrow(
      expect.objectContaining({ name: "PromptManifestUnreadable" }),
    );
  });
});

describe("PromptRowValidator on hostile JSON Lines", () => {
  it("names each bad row's line and reason", async () => {
    const { rows, bad } = await validate(await readFile(`${FIXTURES}hostile.jsonl`), "jsonl");
    expect(rows.map((row) => [row.line, row.id, row.format])).toEqual([
      [1, "greeting", "telephony"],
      [12, "pcm", "pcm16"],
    ]);
    expect(rows[1]?.language).toBe("en");
    expect(bad.map((row) => [row.line, row.error])).toEqual([
      [2, "PromptTextControlCharacters"],
      [3, "PromptTextControlCharacters"],
      [4, "PromptTextControlCharacters"],
      [5, "PromptRowMalformed"],
      [6, "PromptRowMalformed"],
      [7, "PromptRowMalformed"],
      [8, "PromptRowMalformed"],
      [9, "PromptRowMalformed"],
      [10, "PromptTextControlCharacters"],
      [11, "PromptTextInvalidUtf8"],
    ]);
  });
});

describe("prompt identity", () => {
  it("is the content of the row, not its line", () => {
    const row = { id: "a", text: "Hello.", format: "telephony" };
    expect(promptRowHash(row)).toBe(promptRowHash({ ...row }));
    expect(promptRowHash({ ...row, text: "Hello!" })).not.toBe(promptRowHash(row));
    expect(promptRowHash({ ...row, voice: "rms" })).not.toBe(promptRowHash(row));
    expect(promptRowHash({ ...row, format: "pcm16" })).not.toBe(promptRowHash(row));
  });
});

describe("manifestTypeOf", () => {
  it("knows CSV and JSON Lines by name and refuses anything else", () => {
    expect(manifestTypeOf("incoming/prompts/menu.CSV")).toBe("csv");
    expect(manifestTypeOf("incoming/prompts/menu.jsonl")).toBe("jsonl");
    expect(manifestTypeOf("incoming/prompts/menu.ndjson")).toBe("jsonl");
    expect(() => manifestTypeOf("incoming/prompts/menu.xlsx")).toThrow(
      expect.objectContaining({ name: "PromptManifestUnreadable" }),
    );
  });
});
