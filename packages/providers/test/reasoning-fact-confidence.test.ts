import { type CheckedFact, LOCAL_BOUNDARY, type Transcript, VoicemailRecord } from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { CALL_REVIEW_THRESHOLD, checkFacts, REVIEW_THRESHOLD } from "../src/reasoning/fact-confidence";
import { LocalReasoner } from "../src/reasoning/local-reasoner";
import { tokenConfidences } from "../src/reasoning/token-confidence";
import { RECORDS } from "./local-reasoning";

const SURE = 0.95;
const UNSURE = 0.05;

/**
 * A transcript of `spoken` words, each `word` or `word@confidence` (default {@link SURE}), as a
 * recogniser that gives word posteriors hands it over.
 */
function heard(spoken: string): Transcript {
  const words = spoken.split(" ").map((item, index) => {
    const [word = "", confidence] = item.split("@");
    return {
      word,
      startMs: index * 300,
      endMs: index * 300 + 250,
      confidence: confidence === undefined ? SURE : Number(confidence),
    };
  });
  return {
    text: words.map((word) => word.word).join(" "),
    words,
    language: "en",
    audioMs: words.length * 300,
    processor: { provider: "test", model: "test", version: "0", boundary: LOCAL_BOUNDARY },
  };
}

/** Ways a reply could say a fact's value: as digits, digits spaced or grouped as a phone number, a day. */
function spokenForms(value: string): string[] {
  const digits = value.replace(/\D/g, "");
  if (digits === "") return [value];
  const forms = [digits, digits.split("").join(" ")];
  if (digits.length === 10) forms.push(`${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`);
  return forms;
}

/**
 * The rule this part of issue 40 is done by: every checked fact whose words the recogniser was
 * unsure of is listed in the record's `review`, and the reply states none of them.
 */
async function expectUnsureFactsHeld(transcript: Transcript): Promise<VoicemailRecord> {
  const record = VoicemailRecord.parse(await new LocalReasoner().reason(transcript, RECORDS));
  const { confidence } = checkFacts(transcript, record.intent, record.entities, REVIEW_THRESHOLD);
  const held = new Set(record.review?.map(({ fact }) => fact));
  for (const [fact, score] of Object.entries(confidence) as [CheckedFact, number][]) {
    if (score >= REVIEW_THRESHOLD) continue;
    expect(held, `${fact} (confidence ${score}) is marked for review`).toContain(fact);
    const value = fact === "intent" ? undefined : record.entities[fact];
    for (const form of value ? spokenForms(value) : []) expect(record.replyText).not.toContain(form);
    expect(record.reply?.facts.map(({ fact: stated }) => stated)).not.toContain(fact);
  }
  return record;
}

describe("facts the recogniser was unsure of", () => {
  test("a low-confidence order number is marked for review, kept as heard, and absent from the reply", async () => {
    const record = await expectUnsureFactsHeld(
      heard(
        `hi this is maria lopez my order number is four@${UNSURE} two seven one and it arrived broken please call me back`,
      ),
    );
    expect(record.entities.orderNumber).toBe("4271");
    expect(record.review).toEqual([
      {
        fact: "orderNumber",
        confidence: UNSURE,
        threshold: REVIEW_THRESHOLD,
        reason: `the recogniser's confidence in its words ${UNSURE} is below ${REVIEW_THRESHOLD}`,
      },
    ]);
    expect(record.confidence).toMatchObject({ orderNumber: UNSURE, intent: SURE });
    // Not looked up by a number that may be misheard, so nothing from the records is said either.
    expect(record.match).toEqual({ outcome: "not-found", searchedFor: [] });
    expect(record.replyText).toBe(
      "Hi, this is Acme support. Thanks for your message. We couldn't make out your order number clearly; " +
        "please call us back so we can get it right.",
    );
    expect(record.replyText).not.toContain("Maria");
    expect(record.reply).toEqual({ template: "unsure", facts: [] });
    expect(record.summary).toMatch(/Held for review: orderNumber\.$/);
  });

  test("a high-confidence order number is stated, and nothing is held", async () => {
    const record = await expectUnsureFactsHeld(
      heard("hi this is maria lopez my order number is four two seven one and it arrived broken"),
    );
    expect(record.review).toBeUndefined();
    expect(record.confidence).toEqual({ orderNumber: SURE, intent: SURE });
    expect(record.replyText).toContain("order 4271");
    expect(record.match).toMatchObject({ outcome: "found", matchedOn: "orderNumber" });
  });

  test("a low-confidence day is held and the reply does not name it", async () => {
    const record = await expectUnsureFactsHeld(
      heard(
        `i need to reschedule my appointment to friday@${UNSURE} my account number is seven seven two oh`,
      ),
    );
    expect(record.entities.day).toBe("Friday");
    expect(record.review?.map(({ fact }) => fact)).toEqual(["day"]);
    expect(record.replyText).not.toContain("Friday");
    expect(record.replyText).toContain("the day you asked for");
  });

  test("a low-confidence intent is held: the best-heard word naming it counts", async () => {
    const unsure = await expectUnsureFactsHeld(heard(`please cancel@${UNSURE} it thanks bye`));
    expect(unsure.intent).toBe("cancellation");
    expect(unsure.review?.map(({ fact }) => fact)).toEqual(["intent"]);
    expect(unsure.replyText).toContain("what you need");
    expect(unsure.replyText).not.toMatch(/cancel/);
    // One clear "cancel" is enough, however the other cue was heard.
    const sure = await expectUnsureFactsHeld(heard(`please cancel my subscription@${UNSURE}`));
    expect(sure.review).toBeUndefined();
  });

  test("a low-confidence callback number is held; several are named together", async () => {
    const record = await expectUnsureFactsHeld(
      heard(
        `please call me back at five five five one two three four@${UNSURE} five six seven about friday@${UNSURE}`,
      ),
    );
    expect(record.review?.map(({ fact }) => fact)).toEqual(["callbackNumber", "day"]);
    expect(record.replyText).toContain("the number to call you back on and the day you asked for");
  });

  test("a transcript with no confidences (an engine that gives none) holds nothing and states its facts", async () => {
    const transcript = heard(
      "hi this is maria lopez my order number is four two seven one and it arrived broken",
    );
    const bare = { ...transcript, words: transcript.words.map(({ confidence: _, ...word }) => word) };
    const record = VoicemailRecord.parse(await new LocalReasoner().reason(bare, RECORDS));
    expect(record.review).toBeUndefined();
    expect(record.confidence).toBeUndefined();
    expect(record.replyText).toContain("order 4271");
  });

  test("a surely heard account number of a length no record has is held, and the reply does not state it", async () => {
    expect(RECORDS.referenceLengths()).toMatchObject({ account: 4 });
    const record = VoicemailRecord.parse(
      await new LocalReasoner().reason(
        heard("hi my account number is eight eight one five three i was charged twice on my bill"),
        RECORDS,
      ),
    );
    expect(record.entities.accountNumber).toBe("88153");
    expect(record.review).toEqual([
      {
        fact: "accountNumber",
        confidence: SURE,
        threshold: REVIEW_THRESHOLD,
        reason: "heard with 5 digits, where every account number in the records has 4",
      },
    ]);
    for (const form of spokenForms("88153")) expect(record.replyText).not.toContain(form);
    expect(record.replyText).toMatch(/couldn't make out your account number/);
  });

  test("reviewBelow 0 holds nothing and still records each fact's confidence", async () => {
    const transcript = heard(`my order number is four@${UNSURE} two seven one it arrived broken`);
    const record = await new LocalReasoner({ reviewBelow: 0 }).reason(transcript, RECORDS);
    expect(record.review).toBeUndefined();
    expect(record.confidence?.orderNumber).toBe(UNSURE);
    expect(record.replyText).toContain("order 4271");
  });

  test("a record written before confidences were kept still parses", () => {
    const {
      confidence: _c,
      review: _r,
      ...older
    } = VoicemailRecord.parse({
      intent: "other",
      entities: {},
      summary: "s",
      match: { outcome: "not-found", searchedFor: [] },
      replyText: "r",
      processor: { provider: "p", model: "m", version: "1", boundary: LOCAL_BOUNDARY },
    });
    expect(VoicemailRecord.safeParse(older).success).toBe(true);
  });
});

describe("checkFacts", () => {
  test("a number the transcript's words do not hold scores 0 and is held", () => {
    const check = checkFacts(heard("please call me back"), "callback-request", { orderNumber: "9999" }, 0.5);
    expect(check.confidence.orderNumber).toBe(0);
    expect(check.review[0]).toMatchObject({
      fact: "orderNumber",
      reason: "its words were not found in the transcript: confidence 0 is below 0.5",
    });
  });

  test("a number is found with its punctuation ignored and a doubled zero counted once", () => {
    const transcript = heard(
      `call me on five five five one two three four five six seven order four one oh@0.3 oh seven`,
    );
    const check = checkFacts(
      transcript,
      "callback-request",
      { callbackNumber: "555-123-4567", orderNumber: "4107" },
      0.5,
    );
    expect(check.confidence).toMatchObject({ callbackNumber: SURE, orderNumber: 0.3 });
  });

  test("order and account numbers are held when their length is not the records'; callback numbers never are", () => {
    const transcript = heard(
      "order four two seven one one account eight one five three call me at five five five one two three four",
    );
    const { review } = checkFacts(
      transcript,
      "order-problem",
      { orderNumber: "42711", accountNumber: "8153", callbackNumber: "5551234" },
      REVIEW_THRESHOLD,
      { lengths: { order: 4, account: 4 } },
    );
    expect(review.map(({ fact, reason }) => [fact, reason])).toEqual([
      ["orderNumber", "heard with 5 digits, where every order number in the records has 4"],
    ]);
    const none = checkFacts(transcript, "order-problem", { orderNumber: "42711" }, REVIEW_THRESHOLD);
    expect(none.review).toEqual([]);
  });

  test("a call whose words are on average no surer than a coin toss holds every fact found", () => {
    const garbled = heard(
      "hi@0.2 my@0.3 order@0.9 number@0.9 is@0.2 four@0.5 two@0.5 seven@0.5 one@0.5 call@0.3 me@0.2 back@0.3",
    );
    const { confidence, review } = checkFacts(
      garbled,
      "callback-request",
      { orderNumber: "4271" },
      REVIEW_THRESHOLD,
    );
    // Each fact's own words pass the threshold; the call as a whole (mean 5.3 / 12 words) does not.
    expect(confidence.orderNumber).toBe(0.5);
    expect(review.map(({ fact, threshold }) => [fact, threshold])).toEqual([
      ["orderNumber", CALL_REVIEW_THRESHOLD],
      ["intent", CALL_REVIEW_THRESHOLD],
    ]);
    expect(review[0]?.reason).toBe(
      "the recogniser's mean confidence over the whole call 0.441 is below 0.45: too little of it was made out",
    );
    const clear = heard("hi my order number is four two seven one call me back");
    expect(checkFacts(clear, "callback-request", { orderNumber: "4271" }, REVIEW_THRESHOLD).review).toEqual(
      [],
    );
  });

  test("an intent no words named takes the mean confidence of all words", () => {
    const check = checkFacts(heard("the weather@0.1 is nice@0.1 today@0.2"), "other", {}, 0.5);
    expect(check.confidence.intent).toBeCloseTo((0.95 + 0.1 + 0.95 + 0.1 + 0.2) / 5, 3);
    expect(check.review.map(({ fact }) => fact)).toEqual(["intent"]);
  });
});

describe("tokenConfidences", () => {
  test("follows an engine's punctuated text back to its words (Amazon Transcribe's shape)", () => {
    const transcript = {
      text: "Hi, order 4271. Thanks!",
      words: [
        { word: "Hi", startMs: 0, endMs: 100, confidence: 0.9 },
        { word: "order", startMs: 100, endMs: 200, confidence: 0.8 },
        { word: "4271", startMs: 200, endMs: 300, confidence: 0.4 },
        { word: "Thanks", startMs: 300, endMs: 400, confidence: 0.7 },
      ],
    };
    expect(tokenConfidences(transcript)).toEqual([0.9, 0.8, 0.4, 0.7]);
  });

  test("a text token no word gave has no confidence, and the words after it still line up", () => {
    const transcript = {
      text: "call me um back",
      words: [
        { word: "call", startMs: 0, endMs: 1, confidence: 0.9 },
        { word: "me", startMs: 1, endMs: 2, confidence: 0.8 },
        { word: "back", startMs: 2, endMs: 3, confidence: 0.7 },
      ],
    };
    expect(tokenConfidences(transcript)).toEqual([0.9, 0.8, undefined, 0.7]);
  });
});
