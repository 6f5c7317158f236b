import { LOCAL_BOUNDARY } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { extractEntities, readEntities } from "../src/reasoning/entities";
import { classifyIntent } from "../src/reasoning/intent";
import { LocalReasoner } from "../src/reasoning/local-reasoner";
import { JsonlRecordLookup } from "../src/records/jsonl-record-lookup";
import { RECORDS, reason, transcript } from "./local-reasoning";

describe("LocalReasoner on clean transcripts", () => {
  test("a damaged order: intent, entities, record, summary and reply", async () => {
    const record = await reason(
      "Hi, this is Maria Lopez. I'm calling about order number 4271. It arrived today and the lamp was broken. " +
        "Please call me back at 555-123-4567.",
    );
    expect(record).toMatchObject({
      intent: "order-problem",
      entities: { callerName: "Maria Lopez", orderNumber: "4271", callbackNumber: "5551234567" },
      match: { outcome: "found", matchedOn: "orderNumber", record: { id: "ord-4271" } },
      summary: "Maria Lopez reports that order 4271 arrived damaged; call back on 555-123-4567.",
      replyText:
        "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; a replacement is on its way.",
      processor: {
        provider: "local-rules",
        model: "voxtrail-local-reasoner",
        version: "5",
        boundary: LOCAL_BOUNDARY,
      },
    });
    expect(record.summary).not.toContain("lamp");
  });

  test("the caller's correction wins: a day, and a number after 'sorry, I mean'", async () => {
    const record = await reason(
      "Hello, this is David Chen. Could we move my appointment to Friday... actually, sorry, Thursday at three thirty? " +
        "My number is five five five, eight six seven, two three four one.",
    );
    expect(record).toMatchObject({
      intent: "reschedule",
      entities: { day: "Thursday", time: "3:30", callbackNumber: "5558672341", callerName: "David Chen" },
      match: { outcome: "found", matchedOn: "callbackNumber", record: { id: "acct-7720" } },
      replyText:
        "Hi David, this is Acme support. We've noted your request to move your appointment to Thursday at 3:30; " +
        "we'll confirm the new time shortly.",
    });

    expect(
      extractEntities("my order number is four two seven two, sorry, I mean four two seven one"),
    ).toEqual({
      orderNumber: "4271",
    });
    expect(extractEntities("account 7720, no wait, 7702")).toEqual({ accountNumber: "7702" });
    // The words after a correction heard as digits ("the rug" as "zero"): cut to the length corrected.
    expect(
      extractEntities(
        "order seven three one seven sorry i mean seven three one six zero five got is the wrong color",
      ),
    ).toEqual({ orderNumber: "7316" });
    expect(extractEntities("order 7317, sorry, I mean 7316 12345")).toEqual({ orderNumber: "7317" });
    expect(extractEntities("Thursday at two, not Friday, no wait, make it four p m")).toEqual({
      day: "Thursday",
      time: "4:00 pm",
    });
  });

  test("a correction cue does not turn a phone number into an order number", () => {
    expect(extractEntities("order 4271, sorry, 555 123 4567 is my cell")).toEqual({
      orderNumber: "4271",
      callbackNumber: "5551234567",
    });
  });

  test("digits spoken in groups are a number, not a clock time: 'nine o three sixty six twelve'", () => {
    expect(
      extractEntities("can you call me at five five five nine o three sixty six twelve thank you"),
    ).toEqual({
      callbackNumber: "5559036612",
    });
    expect(extractEntities("can we move it to thursday at six twelve")).toEqual({
      day: "Thursday",
      time: "6:12",
    });
  });

  test("a callback request finds the caller by phone number", async () => {
    const record = await reason("Hi, it's Tom. Give me a call back at 555 730 1204 when you get a chance.");
    expect(record).toMatchObject({
      intent: "callback-request",
      entities: { callbackNumber: "5557301204" },
      match: { outcome: "found", matchedOn: "callbackNumber", record: { id: "ord-5034" } },
      summary: "Tom Baker asks for a call back on 555-730-1204.",
      replyText: "Hi Tom, this is Acme support. We're returning your call: how can we help?",
    });
  });

  test("a message with no request or callback is 'other', and its unmatched reply promises nothing", async () => {
    const record = await reason("I just wanted to say the team did a wonderful job in my kitchen last week.");
    expect(record.intent).toBe("other");
    expect(record.replyText).toBe(
      "Hi, this is Acme support. Thanks for your message; if there's anything we can do, please call us back.",
    );
  });

  test("the business name is configurable", async () => {
    const reasoner = new LocalReasoner({ businessName: "Brightside Cleaning" });
    const record = await reasoner.reason(transcript("um, hi... never mind, bye"), RECORDS);
    expect(record.replyText).toMatch(/^Hi, this is Brightside Cleaning\./);
  });
});

describe("LocalReasoner on noisy (pocketsphinx) transcripts", () => {
  test.each([
    {
      heard: "digit homophones inside a number: 'four to seven when'",
      text:
        "hi this is maria lopez i am calling it down order number four to seven when it arrived damaged the box was " +
        "crash and the land inside is broken please call me back and five five five one two three four five six " +
        "seven thank you",
      expected: {
        intent: "order-problem",
        entities: { callerName: "Maria Lopez", orderNumber: "4271", callbackNumber: "5551234567" },
        match: { outcome: "found", matchedOn: "orderNumber" },
      },
    },
    {
      heard: "a billing question with a spoken account number",
      text:
        "hi my name is james miller my account number is eight one five three i was charged twice on my last " +
        "enjoys the same payment shoals up two times on my card can someone without the bill and riff on the extra " +
        "charge call me at five five five two zero two nine eight one four",
      expected: {
        intent: "billing",
        entities: { callerName: "James Miller", accountNumber: "8153", callbackNumber: "5552029814" },
        match: { outcome: "found", matchedOn: "accountNumber", record: { id: "acct-8153" } },
        replyText:
          "Hi James, this is Acme support about account 8153. We're reviewing the charges on your bill and will get " +
          "back to you within one business day.",
      },
    },
    {
      heard: "a correction in a reschedule: 'friday actually sorry thursday at three thirty'",
      text:
        "hello this is david choe and i have a gleaming appointment booked for friday morning and i need to move it " +
        "to good we do friday actually sorry thursday at three thirty instead my number is five five five eight six " +
        "seven two three four one thanks",
      expected: {
        intent: "reschedule",
        entities: { day: "Thursday", time: "3:30", callbackNumber: "5558672341" },
      },
    },
    {
      heard: "not found: a generic reply that names nobody from the records",
      text:
        "hello this is sarah jones i want to cancel my order order number six six zero nine i don't need it " +
        "anymore so please cancel it you can reach me at five five five three four four one two one two bye",
      expected: {
        intent: "cancellation",
        entities: { orderNumber: "6609", callbackNumber: "5553441212", callerName: "Sarah Jones" },
        match: { outcome: "not-found", searchedFor: ["orderNumber", "callbackNumber"] },
        summary: "Sarah Jones asks to cancel order 6609 (not in the records); call back on 555-344-1212.",
        replyText:
          "Hi, this is Acme support returning your call. We couldn't find order 6609 in our records; please call us " +
          "back with the number from your confirmation.",
      },
    },
  ])("$heard", async ({ text, expected }) => {
    expect(await reason(text)).toMatchObject(expected);
  });

  test("a digit homophone ending a number: 'one to'", () => {
    expect(
      extractEntities("you can reach me yet five five five three four four one two one to thank you bye"),
    ).toEqual({
      callbackNumber: "5553441212",
    });
  });

  test.each(["", "um hi uh never mind bye", "i'm high but never mind by", "and by and never mind by"])(
    "no message: %j",
    async (text) => {
      expect(await reason(text)).toMatchObject({
        intent: "no-message",
        entities: {},
        match: { outcome: "not-found", searchedFor: [] },
        summary: "The caller left no message.",
        replyText:
          "Hi, this is Acme support. We missed your call; please call us back if there's anything we can do.",
      });
    },
  );
});

describe("LocalReasoner on numbers whose cue was misheard", () => {
  test("'numbers' for 'number is' still names the number", async () => {
    expect(extractEntities("my account numbers eighty one fifty three thank you")).toEqual({
      accountNumber: "8153",
    });
  });

  test("a number no word can name is placed by the one record kind that holds it", async () => {
    const record = await reason(
      "hi this is james miller my phone number is eighty one fifty four sorry eighty one fifty three i was " +
        "overcharged call me at five five five two oh two nine eight one four",
    );
    expect(record.entities).toMatchObject({ accountNumber: "8153", callbackNumber: "5552029814" });
    expect(record.match).toMatchObject({ outcome: "found", matchedOn: "accountNumber" });
    expect(
      readEntities("i'm calling about four two seven one seven sorry i mean four two seven one"),
    ).toEqual({
      entities: {},
      unnamed: [["42717"], ["4271"]],
    });
    expect(
      (await reason("i'm calling about four two seven one seven sorry i mean four two seven one")).entities,
    ).toEqual({ orderNumber: "4271" });
  });

  test("a homophone heard at a number's end may be dropped to find it", async () => {
    const text = "hi i'm calling about four two seven one for the lamp";
    expect(readEntities(text).unnamed).toEqual([["42714", "4271"]]);
    expect((await reason(text)).entities).toEqual({ orderNumber: "4271" });
  });

  test("a number the records do not hold, or hold as two kinds, stays unplaced", async () => {
    expect((await reason("my phone number is six six zero nine thanks")).entities).toEqual({});
    const both = new JsonlRecordLookup(
      [
        { type: "order", id: "ord-7720", orderNumber: "7720", customerName: "Ann Lee" },
        { type: "account", id: "acct-7720", accountNumber: "7720", customerName: "David Chen" },
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    const record = await new LocalReasoner().reason(
      transcript("my phone number is seven seven two oh"),
      both,
    );
    expect(record.entities).toEqual({});
    expect(record.match.outcome).toBe("not-found");
  });

  test("a number the caller's words named is never replaced by an unnamed one", async () => {
    const record = await reason("account seven seven two oh and my phone number is eighty one fifty three");
    expect(record.entities).toEqual({ accountNumber: "7720" });
  });
});

describe("classifyIntent", () => {
  test.each([
    ["please cancel my order, it arrived broken", "cancellation"],
    ["my package never arrived", "order-problem"],
    ["you sent the wrong size", "order-problem"],
    ["I was overcharged on my statement", "billing"],
    ["I need to reschedule my appointment", "reschedule"],
    ["call me back please", "callback-request"],
    ["hello it's me", "no-message"],
  ] as const)("%j -> %s", (text, intent) => {
    expect(classifyIntent(text, {})).toBe(intent);
  });

  test.each([
    "can we change the data saturday",
    "i would like to move the cleaning to friday",
    "friday would not work actually make that sunday",
  ])("a change to a day is a reschedule, whatever was heard between: %j", (text) => {
    expect(classifyIntent(text, {})).toBe("reschedule");
  });

  test("an order number adds to an order problem's evidence, never makes one alone", () => {
    const text = "my order ninety one eighty two then arrived please call me back";
    expect(classifyIntent(text, {})).toBe("callback-request");
    expect(classifyIntent(text, { orderNumber: "9182" })).toBe("order-problem");
    expect(classifyIntent("my order is 9182 please call me back", { orderNumber: "9182" })).toBe(
      "callback-request",
    );
  });

  test("a day and a time add to a reschedule's evidence", () => {
    const text = "could we do Thursday at three thirty instead";
    expect(classifyIntent(text, {})).toBe("other");
    expect(classifyIntent(text, extractEntities(text))).toBe("reschedule");
  });
});
