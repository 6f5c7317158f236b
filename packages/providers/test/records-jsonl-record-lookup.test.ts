import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { BusinessRecord, InvalidInput, LOCAL_BOUNDARY } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { JsonlRecordLookup } from "../src/records/jsonl-record-lookup";

const FIXTURE = fileURLToPath(new URL("../../../fixtures/records/records.jsonl", import.meta.url));
const SCRIPTS = fileURLToPath(new URL("../../../fixtures/voicemail/scripts.json", import.meta.url));

const jsonl = (...records: object[]) => records.map((record) => JSON.stringify(record)).join("\n");

function thrownBy(run: () => unknown): Error | undefined {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  return undefined;
}

describe("JsonlRecordLookup", () => {
  const lookup = new JsonlRecordLookup(
    jsonl(
      {
        type: "order",
        id: "o1",
        orderNumber: "A-4271",
        customerName: "Maria Lopez",
        phone: "+1 (555) 123-4567",
      },
      { type: "order", id: "o2", orderNumber: "9182", customerName: "Maria Lopez", phone: "555-123-4567" },
      {
        type: "account",
        id: "a1",
        accountNumber: "8153",
        customerName: "James Miller",
        phone: "555 202 9814",
      },
    ),
  );

  test("finds by order number, then account number, then callback number", async () => {
    expect(await lookup.find({ orderNumber: "a4271", accountNumber: "8153" })).toMatchObject({
      matchedOn: "orderNumber",
      record: { id: "o1" },
    });
    expect(
      await lookup.find({ orderNumber: "0000", accountNumber: "8153", callbackNumber: "5551234567" }),
    ).toMatchObject({ matchedOn: "accountNumber", record: { id: "a1" } });
    expect(await lookup.find({ orderNumber: "0000", callbackNumber: "5552029814" })).toMatchObject({
      matchedOn: "callbackNumber",
      record: { id: "a1" },
    });
  });

  test("phone numbers match on digits: ten (country code dropped) or the last seven; first record wins", async () => {
    expect(await lookup.find({ callbackNumber: "15551234567" })).toMatchObject({ record: { id: "o1" } });
    expect(await lookup.find({ callbackNumber: "1234567" })).toMatchObject({ record: { id: "o1" } });
    expect(await lookup.find({ callbackNumber: "555123456" })).toBeUndefined();
  });

  test("nothing found, or nothing to search for: undefined", async () => {
    expect(await lookup.find({ orderNumber: "6609", callbackNumber: "5553441212" })).toBeUndefined();
    expect(await lookup.find({ day: "Thursday", callerName: "Maria Lopez" })).toBeUndefined();
  });

  test("reference lengths: each kind whose numbers are all digits of one length", async () => {
    // "A-4271" has a letter: the orders have no spoken length; the one account has 4 digits.
    expect(lookup.referenceLengths()).toEqual({ account: 4 });
    const order = (orderNumber: string) => ({
      type: "order",
      id: orderNumber,
      orderNumber,
      customerName: "x",
    });
    expect(new JsonlRecordLookup(jsonl(order("12-34"), order("5678"))).referenceLengths()).toEqual({
      order: 4,
    });
    expect(new JsonlRecordLookup(jsonl(order("1234"), order("56789"))).referenceLengths()).toEqual({});
    expect(new JsonlRecordLookup("").referenceLengths()).toEqual({});
    // One digit, or more than 20: no length a refit could use.
    expect(new JsonlRecordLookup(jsonl(order("7"), order("8"))).referenceLengths()).toEqual({});
    expect(new JsonlRecordLookup(jsonl(order("1".repeat(21)))).referenceLengths()).toEqual({});
    expect((await JsonlRecordLookup.fromFile(FIXTURE)).referenceLengths()).toEqual({ order: 4, account: 4 });
  });

  test("processor: local, versioned by the text's sha256", () => {
    const text = jsonl({ type: "order", id: "o1", orderNumber: "1" });
    expect(new JsonlRecordLookup(text).processor).toEqual({
      provider: "jsonl-records",
      model: "records.jsonl",
      version: createHash("sha256").update(text).digest("hex").slice(0, 12),
      boundary: LOCAL_BOUNDARY,
    });
    expect(new JsonlRecordLookup(`${text}\n`).processor.version).not.toBe(
      new JsonlRecordLookup(text).processor.version,
    );
  });

  test("blank lines are skipped; a bad line is an InvalidInput naming its line, not its content", () => {
    expect(() => new JsonlRecordLookup(`\n${jsonl({ type: "order", id: "o1" })}\n\n`)).not.toThrow();

    const notJson = () => new JsonlRecordLookup(`${jsonl({ type: "order", id: "o1" })}\n{"secret": 4271`);
    expect(notJson).toThrow(InvalidInput);
    expect(notJson).toThrow("records line 2: not valid JSON");

    const notRecord = () =>
      new JsonlRecordLookup(
        jsonl({ type: "order", id: "o1" }, {}, { type: "invoice", id: "x", phone: 5551234567 }),
      );
    expect(notRecord).toThrow(/^records line 2: not a business record \(type: .*; id: .*\)$/);
    const error = thrownBy(
      () => new JsonlRecordLookup(jsonl({ type: "invoice", id: "secret-id", phone: 5551234567 })),
    );
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error?.message).toMatch(/^records line 1: .*type: .*phone: /);
    expect(error?.message).not.toMatch(/secret-id|5551234567/);
  });

  test("fromFile reads the fixture records: valid, unique ids, and the voicemails' numbers", async () => {
    const text = await readFile(FIXTURE, "utf8");
    const records = text
      .trim()
      .split("\n")
      .map((line) => BusinessRecord.parse(JSON.parse(line)));
    expect(records.length).toBeGreaterThanOrEqual(10);
    expect(new Set(records.map((record) => record.id)).size).toBe(records.length);

    const fixture = await JsonlRecordLookup.fromFile(FIXTURE);
    expect(fixture.processor.version).toBe(createHash("sha256").update(text).digest("hex").slice(0, 12));
    expect(await fixture.find({ orderNumber: "4271" })).toMatchObject({
      record: { customerName: "Maria Lopez" },
    });
    expect(await fixture.find({ accountNumber: "8153" })).toMatchObject({
      record: { customerName: "James Miller" },
    });
    expect(await fixture.find({ callbackNumber: "5558672341" })).toMatchObject({
      record: { customerName: "David Chen" },
    });
    // The cancellation voicemail's order and phone are deliberately absent.
    const scripts = JSON.parse(await readFile(SCRIPTS, "utf8")) as Record<string, string>;
    expect(scripts.cancellation).toContain("six six zero nine");
    expect(await fixture.find({ orderNumber: "6609", callbackNumber: "5553441212" })).toBeUndefined();
  });
});
