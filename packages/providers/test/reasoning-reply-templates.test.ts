import { describe, expect, test } from "vitest";
import {
  REPLY_TEMPLATES,
  type ReplyFactName,
  type ReplyFactValues,
  type ReplyTemplate,
  type ReplyTemplateId,
} from "../src/reasoning/reply-templates";
import { reason } from "./local-reasoning";

// A reply written without a matched record must not promise anything on the business's behalf:
// no replacement, refund, confirmation or call back that no record supports.

/** Language that says the business took or will take an action. */
const ACTION_LANGUAGE =
  /\b(will|won't|we'll|on its way|replacement|refund(ed|s)?|we've (noted|received|sent|arranged|issued|processed)|we got your request|confirm(ed|s)?|tracking|looking into|reviewing|call you( back)?|get back to you|update you|shortly)\b/i;

/** The unmatched replies before templates: each claims an action no record supports. */
const OLD_UNMATCHED_TEXTS = [
  "Hi, this is Acme support. We're sorry it arrived damaged; a replacement is on its way.",
  "Hi, this is Acme support. We're sorry it hasn't arrived; we're tracking it down and will update you today.",
  "Hi, this is Acme support. We're sorry we sent the wrong item; the right one is on its way, with a return label for the other.",
  "Hi, this is Acme support. We're sorry there's a problem with your order; we're looking into it and will call you back today.",
  "Hi, this is Acme support. We've noted your request to move your appointment to Thursday at 3:30; we'll confirm the new time shortly.",
  "Hi, this is Acme support. We got your request to reschedule; we'll call you to find a new time.",
  "Hi, this is Acme support. We're reviewing the charges on your bill and will get back to you within one business day.",
  "Hi, this is Acme support. We've received your cancellation request and will confirm it shortly.",
  "Hi, this is Acme support. Thanks for your message; someone from our team will call you back shortly.",
];

const ALL_FACTS: Required<ReplyFactValues> = {
  customerFirstName: "Zelda",
  orderNumber: "1357",
  accountNumber: "2468",
  day: "Saturday",
  time: "9:15",
};

/** Sample facts covering each template's branches (with and without a name, a reference, a day and a time). */
const SAMPLE_FACTS: ReplyFactValues[] = [
  {},
  { customerFirstName: "Zelda", orderNumber: "1357" },
  { customerFirstName: "Zelda", accountNumber: "2468", day: "Saturday", time: "9:15" },
  { accountNumber: "2468" },
  { day: "Saturday" },
  { time: "9:15" },
  ALL_FACTS,
];

const TEMPLATES: ReplyTemplate[] = Object.values(REPLY_TEMPLATES);

/** What the reasoner would render: only the facts the template states. */
function renderings(template: ReplyTemplate): string[] {
  return SAMPLE_FACTS.map((sample) =>
    template.render(
      "Acme support",
      Object.fromEntries(
        Object.entries(sample).filter(([fact]) => template.states.includes(fact as ReplyFactName)),
      ),
    ),
  );
}

describe("reply templates", () => {
  test("the action-language scan catches every unmatched reply written before templates", () => {
    for (const text of OLD_UNMATCHED_TEXTS) expect(text).toMatch(ACTION_LANGUAGE);
    expect("Hi, this is Acme support. We're sorry it arrived damaged; a replacement is on its way.").toMatch(
      ACTION_LANGUAGE,
    );
  });

  test("each template is filed under its own id", () => {
    for (const [id, template] of Object.entries(REPLY_TEMPLATES)) expect(template.id).toBe(id);
  });

  test.each(TEMPLATES.filter((template) => !template.matchedOnly).map((template) => [template.id, template]))(
    "%s, usable without a matched record, claims no action and states nothing from a record",
    (_id, template) => {
      expect(template.claimsAction).toBe(false);
      expect(template.states).not.toContain("customerFirstName");
      for (const text of renderings(template)) {
        expect(text).not.toMatch(ACTION_LANGUAGE);
        expect(text).not.toContain(ALL_FACTS.customerFirstName);
      }
    },
  );

  test.each(TEMPLATES.map((template) => [template.id, template]))(
    "%s: its declared action claim agrees with its text",
    (_id, template) => {
      for (const text of renderings(template)) {
        if (template.claimsAction) expect(text).toMatch(ACTION_LANGUAGE);
        else expect(text).not.toMatch(ACTION_LANGUAGE);
      }
    },
  );

  test.each(TEMPLATES.map((template) => [template.id, template]))(
    "%s renders no fact it does not declare",
    (_id, template) => {
      const text = template.render("Acme support", ALL_FACTS);
      for (const [fact, value] of Object.entries(ALL_FACTS)) {
        if (!template.states.includes(fact as ReplyFactName)) expect(text).not.toContain(value);
      }
    },
  );
});

/** Transcripts of every intent, with and without a record match, and the template each must get. */
const CASES: readonly [text: string, template: ReplyTemplateId][] = [
  ["I'm calling about order 4271, the lamp arrived broken", "order-problem/damaged/matched"],
  ["calling about my order, it arrived damaged", "order-problem/any/unmatched"],
  ["my package never arrived, you can reach me at 555 730 1204", "order-problem/not-arrived/matched"],
  ["my package never arrived", "order-problem/any/unmatched"],
  ["you sent the wrong size for order 4271", "order-problem/wrong-item/matched"],
  ["you sent the wrong size", "order-problem/any/unmatched"],
  ["the delivery for order 4271 has a piece missing", "order-problem/unspecified/matched"],
  ["the delivery has a piece missing", "order-problem/any/unmatched"],
  ["order 9999 arrived damaged", "not-found-reference"],
  // Maria's phone number matches her records, but the order she names is not hers: no promise.
  ["order 9999 arrived damaged, call me back at 555 123 4567", "not-found-reference"],
  [
    "could we move my appointment to friday, sorry, thursday at three thirty, my number is 555 867 2341",
    "reschedule/matched",
  ],
  ["I need to reschedule my appointment, account 7720", "reschedule/matched"],
  ["I need to reschedule my appointment to thursday at three thirty", "reschedule/unmatched"],
  ["I need to reschedule my appointment", "reschedule/unmatched"],
  ["I was overcharged on my statement for account 8153", "billing/matched"],
  ["I was overcharged on my statement", "billing/unmatched"],
  ["I was overcharged on account 1111", "not-found-reference"],
  ["please cancel order 4271", "cancellation/matched"],
  ["please cancel my subscription", "cancellation/unmatched"],
  ["please cancel order 6609", "not-found-reference"],
  ["Hi, it's Tom. Give me a call back at 555 730 1204 when you get a chance.", "callback-request/matched"],
  ["call me back please", "callback-request/unmatched"],
  ["call me back at 555 000 1111", "callback-request/unmatched"],
  ["I just wanted to say order 4271 was lovely, the team did a wonderful job", "other/matched"],
  ["I just wanted to say the team did a wonderful job in my kitchen last week.", "other/unmatched"],
  ["", "no-message"],
  ["um hi uh never mind bye", "no-message"],
];

describe("LocalReasoner replies", () => {
  test("the issue's case: a damaged order with no number gets no promise", async () => {
    const record = await reason("calling about my order, it arrived damaged");
    expect(record).toMatchObject({
      intent: "order-problem",
      match: { outcome: "not-found" },
      reply: { template: "order-problem/any/unmatched", facts: [] },
      replyText:
        "Hi, this is Acme support. Thanks for letting us know about the problem with your order. We couldn't " +
        "tell which order it is; please call us back with the order number from your confirmation.",
    });
    expect(record.replyText).not.toMatch(ACTION_LANGUAGE);
  });

  test("Maria's matched damaged order keeps its reply and lists its facts from the record", async () => {
    const record = await reason(
      "Hi, this is Maria Lopez. I'm calling about order 4271, the lamp arrived broken.",
    );
    expect(record.replyText).toBe(
      "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; a replacement is on its way.",
    );
    expect(record.reply).toEqual({
      template: "order-problem/damaged/matched",
      facts: [
        { fact: "customerFirstName", value: "Maria", source: "record" },
        { fact: "orderNumber", value: "4271", source: "record" },
      ],
    });
  });

  test("an unmatched reschedule lists the day and time as the caller's", async () => {
    const record = await reason("I need to reschedule my appointment to thursday at three thirty");
    expect(record.replyText).toBe(
      "Hi, this is Acme support. Thanks for your message; we heard you'd like to move your appointment to " +
        "Thursday at 3:30. We couldn't find your booking from this message; please call us back with the number " +
        "from your confirmation.",
    );
    expect(record.reply?.facts).toEqual([
      { fact: "day", value: "Thursday", source: "caller" },
      { fact: "time", value: "3:30", source: "caller" },
    ]);
  });

  test("the cases cover every template", () => {
    expect(new Set(CASES.map(([, template]) => template))).toEqual(new Set(Object.keys(REPLY_TEMPLATES)));
  });

  test.each(CASES)("%j -> %s", async (text, expected) => {
    const record = await reason(text);
    const reply = record.reply;
    expect(reply?.template).toBe(expected);
    if (!reply) return;
    const template = REPLY_TEMPLATES[reply.template as ReplyTemplateId];
    const matched = record.match.outcome === "found";

    if (!matched) {
      expect(template.matchedOnly).toBe(false);
      expect(record.replyText).not.toMatch(ACTION_LANGUAGE);
      expect(reply.facts.filter(({ source }) => source === "record")).toEqual([]);
    }

    // Every listed fact is in the text, with the value from where it says it came from.
    for (const { fact, value, source } of reply.facts) {
      expect(record.replyText).toContain(value);
      if (source === "caller") {
        expect(record.entities[fact as keyof typeof record.entities]).toBe(value);
      } else {
        expect(record.match.outcome).toBe("found");
        if (record.match.outcome !== "found") continue;
        const field = fact === "customerFirstName" ? "customerName" : fact;
        expect(String(record.match.record[field])).toMatch(new RegExp(`^${value}\\b`));
      }
    }

    // Every value from the record or the caller that the text states is listed.
    const listed = new Set(reply.facts.map(({ value }) => value));
    const { customerName, orderNumber, accountNumber, phone } =
      record.match.outcome === "found" ? record.match.record : {};
    const candidates = [
      ...Object.values(record.entities),
      ...(record.entities.callerName?.split(/\s+/) ?? []),
      ...[customerName, orderNumber, accountNumber, phone].filter((value) => value !== undefined),
      ...(customerName?.split(/\s+/) ?? []),
    ];
    for (const value of candidates) {
      if (record.replyText.includes(value))
        expect(listed, `${value} is stated but not listed`).toContain(value);
    }
  });
});
