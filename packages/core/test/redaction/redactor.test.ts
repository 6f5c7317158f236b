import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  findRedactions,
  mergeTerms,
  redactionTermsFromRecords,
  redactText,
  redactTranscript,
  redactVoicemailRecord,
} from "../../src/redaction/redactor";
import { spokenDigits, spokenForms } from "../../src/redaction/spoken-numbers";
import type { Transcript } from "../../src/transcript";
import type { VoicemailRecord } from "../../src/voicemail-record";
import { BusinessRecord } from "../../src/voicemail-record";

const records = readFileSync(new URL("../../../../fixtures/records/records.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => BusinessRecord.parse(JSON.parse(line)));
const terms = redactionTermsFromRecords(records);
/** The records' terms with the call matched to Maria Lopez's record and David Chen's: their first names alone too. */
const matched = mergeTerms(terms, { numbers: [], names: [], nameParts: ["Maria Lopez", "David Chen"] });
const scripts: Record<string, string> = JSON.parse(
  readFileSync(new URL("../../../../fixtures/voicemail/scripts.json", import.meta.url), "utf8"),
);

/** Every number of the records and the scripts, as digits and as words. */
function forbidden(): string[] {
  const numbers = ["4271", "5551234567", "1234567", "8153", "5552029814", "6609", "5553441212", "8672341"];
  return numbers.flatMap(spokenForms);
}

describe("spokenDigits", () => {
  it.each([
    [["five", "oh", "three", "four"], "5034"],
    [["forty", "four", "oh", "nine"], "4409"],
    [["forty"], "40"],
    [["double", "five", "seven"], "557"],
    [["four", "thousand", "two", "hundred", "seventy", "one"], "4271"],
    [["forty", "four", "hundred"], "4400"],
    [["fifty", "five", "hundred", "nine"], "5509"],
    [["twelve", "thirty", "four"], "1234"],
    [["555", "123", "4567"], "5551234567"],
    [["cuarenta", "y", "dos", "setenta", "y", "uno"], "4271"],
    [["veintidos", "diez"], "2210"],
    [["cinco", "cinco", "cinco"], "555"],
    [["siete", "once", "cuatro"], "7114"],
  ])("%j says %s", (words, digits) => {
    expect(spokenDigits(words)).toBe(digits);
  });
});

describe("redactText", () => {
  it("removes an order number said digit by digit, with oh for zero", () => {
    const known = { numbers: [{ kind: "order-number" as const, digits: "5034" }], names: [] };
    expect(redactText("It's about order five oh three four, thanks.", known).text).toBe(
      "It's about order [ORDER_NUMBER], thanks.",
    );
  });

  it("removes an account number said in pairs", () => {
    expect(redactText("account forty four oh nine please", terms).text).toBe(
      "account [ACCOUNT_NUMBER] please",
    );
  });

  it("removes a phone number grouped as digits or as words, and names the kind", () => {
    const digits = redactText("Call me at 555-123-4567.", terms);
    expect(digits.text).toBe("Call me at [PHONE].");
    expect(digits.redactions).toEqual([{ kind: "phone", count: 1 }]);
    expect(redactText("five five five, one two three, four five six seven. Thanks", terms).text).toBe(
      "[PHONE]. Thanks",
    );
  });

  it("removes recogniser homophones beside digits but keeps them as words elsewhere", () => {
    expect(redactText("order number four to seven when it arrived", terms).text).toBe(
      "order number [ORDER_NUMBER] it arrived",
    );
    expect(redactText("I want to go for a walk when it stops", terms).text).toBe(
      "I want to go for a walk when it stops",
    );
  });

  it("removes a number the records do not know when it is as long as a reference", () => {
    const removed = redactText("order number six six zero nine, and 555 344 1212", terms);
    expect(removed.text).toBe("order number [NUMBER], and [PHONE]");
  });

  it("keeps short numbers and clock times", () => {
    const kept = "Thursday at three thirty, two times, at ten thirty, 10:30 am, three items";
    expect(redactText(kept, terms).text).toBe(kept);
  });

  it("removes the matched record's name whole or in part, any case", () => {
    expect(redactText("Hi, this is Maria Lopez. MARIA here again, Lopez's order.", matched).text).toBe(
      "Hi, this is [NAME]. [NAME] here again, [NAME] order.",
    );
  });

  it("removes another record's name only whole, so a name that is a word too stays a word", () => {
    const bill = redactionTermsFromRecords([{ type: "account", id: "a", customerName: "Bill Smith" }]);
    expect(redactText("Your bill is due, Smith said.", bill).text).toBe("Your bill is due, Smith said.");
    expect(redactText("Hi, this is Bill Smith about Bill Smith's account.", bill).text).toBe(
      "Hi, this is [NAME] about [NAME] account.",
    );
    expect(redactText("Hi, this is Maria. Lopez here.", terms).text).toBe("Hi, this is Maria. Lopez here.");
    const will = redactionTermsFromRecords([{ type: "account", id: "w", customerName: "Will" }]);
    expect(redactText("I will call back.", will).text).toBe("I will call back.");
  });

  it("writes what a reply can say aloud in the spoken style", () => {
    expect(
      redactText("Hi Maria, this is Acme support about order 4271. We're sorry.", matched, "spoken").text,
    ).toBe("Hi, this is Acme support about your order. We're sorry.");
    expect(redactText("Hi David, this is Acme about account 7720.", matched, "spoken").text).toBe(
      "Hi, this is Acme about your account.",
    );
    expect(redactText("We'll call 555-867-2341 today.", terms, "spoken").text).toBe(
      "We'll call your number today.",
    );
  });

  it("writes a Spanish reply's replacements in Spanish, and finds names whatever their accents", () => {
    expect(
      redactText("Hola María, somos Acme sobre su pedido 4271. Lo sentimos.", matched, "spoken", "es").text,
    ).toBe("Hola, somos Acme sobre su pedido. Lo sentimos.");
    expect(redactText("Sobre la cuenta 7720.", terms, "spoken", "es").text).toBe("Sobre su cuenta.");
    expect(redactText("Soy María López, pedido 4271.", terms).text).toBe(
      "Soy [NAME], pedido [ORDER_NUMBER].",
    );
    expect(redactText("Soy MARÍA lópez's hija.", terms).text).toBe("Soy [NAME] hija.");
  });

  it("redacts a Spanish caller's numbers said as tens and teens, and leaves an English 'y' or 'once' alone", () => {
    expect(redactText("Mi pedido es cuarenta y dos setenta y uno, gracias.", terms).text).toBe(
      "Mi pedido es [ORDER_NUMBER], gracias.",
    );
    expect(redactText("Pasé una vez, once y nada más.", terms).text).toBe("Pasé una vez, once y nada más.");
  });

  it("reads 'once' as 11 in a Spanish text beside another number word, and nowhere else", () => {
    expect(
      redactText("Mi número es cinco cinco cinco, once veinte treinta y cuatro.", terms, "tag", "es-US").text,
    ).toBe("Mi número es [PHONE].");
    expect(findRedactions("pedido siete once cuatro", terms, "es")).toEqual([
      { start: 7, end: 24, kind: "number" },
    ]);
    expect(redactText("Llamé once, y once más.", terms, "tag", "es").text).toBe("Llamé once, y once más.");
    expect(redactText("Once again, order seven once four.", terms, "tag", "en").text).toBe(
      "Once again, order seven once four.",
    );
  });

  it("leaves none of the fixture scripts' numbers or record names in any script", () => {
    for (const [name, script] of Object.entries(scripts)) {
      const redacted = redactText(script, terms).text.toLowerCase();
      for (const form of forbidden()) expect(redacted, `${name}: ${form}`).not.toContain(form);
      for (const record of records) {
        for (const part of (record.customerName ?? "").toLowerCase().split(" ").filter(Boolean))
          expect(redacted, name).not.toMatch(new RegExp(`\\b${part}\\b`));
      }
    }
  });

  it("finds spans, sorted, without overlap", () => {
    const spans = findRedactions("Maria Lopez, order 4271, phone 555 123 4567", terms);
    expect(spans.map((span) => span.kind)).toEqual(["name", "order-number", "phone"]);
  });

  it("removes numbers said one after another as one run, whatever each is", () => {
    const spans = findRedactions("4271, 555 123 4567", terms);
    expect(spans).toEqual([{ start: 0, end: 18, kind: "phone" }]);
  });
});

describe("redactTranscript", () => {
  it("replaces each word of a redacted span and keeps the timings", () => {
    const words = "this is maria lopez order four two seven one thanks".split(" ");
    const transcript: Transcript = {
      text: "This is Maria Lopez, order four two seven one. Thanks.",
      words: words.map((word, index) => ({ word, startMs: index * 100, endMs: index * 100 + 90 })),
      language: "en",
      audioMs: 1200,
      processor: { provider: "p", model: "m", version: "1", boundary: { kind: "local" } },
    };
    const { transcript: redacted, redactions } = redactTranscript(transcript, terms);
    expect(redacted.text).toBe("This is [NAME], order [ORDER_NUMBER]. Thanks.");
    expect(redacted.words.map((word) => word.word).join(" ")).toBe(
      "this is [NAME] [NAME] order [ORDER_NUMBER] [ORDER_NUMBER] [ORDER_NUMBER] [ORDER_NUMBER] thanks",
    );
    expect(redacted.words[5]?.startMs).toBe(500);
    expect(redactions).toEqual([
      { kind: "order-number", count: 1 },
      { kind: "name", count: 1 },
    ]);
  });
});

describe("redactTranscript in the transcript's language", () => {
  const said = (language: string): Transcript => ({
    text: "Pedido siete once cuatro cero.",
    words: "pedido siete once cuatro cero"
      .split(" ")
      .map((word, index) => ({ word, startMs: index, endMs: index + 1 })),
    language,
    audioMs: 10,
    processor: { provider: "p", model: "m", version: "1", boundary: { kind: "local" } },
  });

  it("removes 'once' with the numbers beside it in a Spanish transcript only", () => {
    expect(redactTranscript(said("es-US"), terms).transcript.text).toBe("Pedido [NUMBER].");
    expect(redactTranscript(said("en-US"), terms).transcript.text).toBe("Pedido siete once cuatro cero.");
  });
});

describe("redactVoicemailRecord", () => {
  it("keeps no number or name of the caller anywhere in the record", () => {
    const record: VoicemailRecord = {
      intent: "order-problem",
      entities: { orderNumber: "4271", callbackNumber: "5551234567", callerName: "Maria Lopez" },
      summary: "Maria Lopez reports order 4271 arrived damaged; call back 555-123-4567.",
      match: { outcome: "found", matchedOn: "orderNumber", record: records[0] as BusinessRecord },
      replyText: "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged.",
      reply: {
        template: "order-problem/damaged/matched",
        facts: [
          { fact: "customerFirstName", value: "Maria", source: "record" },
          { fact: "orderNumber", value: "4271", source: "record" },
        ],
      },
      processor: { provider: "p", model: "m", version: "1", boundary: { kind: "local" } },
    };
    const { record: redacted, redactions } = redactVoicemailRecord(record, terms);
    const json = JSON.stringify(redacted).toLowerCase();
    for (const form of spokenForms("4271").concat(spokenForms("5551234567"), spokenForms("1234567")))
      expect(json).not.toContain(form);
    expect(json).not.toMatch(/maria|lopez/);
    expect(redacted.replyText).toBe(
      "Hi, this is Acme support about your order. We're sorry it arrived damaged.",
    );
    expect(redacted.match.outcome === "found" && redacted.match.record.item).toBe("table lamp");
    expect(redactions.map((count) => count.kind)).toEqual(["phone", "order-number", "name"]);
  });
});
