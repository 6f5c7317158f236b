import type { ReplyFact } from "@voxtrail/core";

/** The name of a fact a reply can state. */
export type ReplyFactName = ReplyFact["fact"];

/** The values a template renders from, by fact name; a template states only the ones it lists. */
export type ReplyFactValues = Partial<Record<ReplyFactName, string>>;

/** Every reply the local reasoner can write. */
export type ReplyTemplateId =
  | "order-problem/damaged/matched"
  | "order-problem/not-arrived/matched"
  | "order-problem/wrong-item/matched"
  | "order-problem/unspecified/matched"
  | "order-problem/any/unmatched"
  | "reschedule/matched"
  | "reschedule/unmatched"
  | "billing/matched"
  | "billing/unmatched"
  | "cancellation/matched"
  | "cancellation/unmatched"
  | "callback-request/matched"
  | "callback-request/unmatched"
  | "other/matched"
  | "other/unmatched"
  | "not-found-reference"
  | "no-message";

/** One named reply. */
export interface ReplyTemplate<Id extends ReplyTemplateId = ReplyTemplateId> {
  id: Id;
  /** May only be used when the business record was found: it states facts from that record or acts on it. */
  matchedOnly: boolean;
  /**
   * Says the business took or will take an action (a replacement, a refund, a confirmation to come,
   * a call back, "we've noted"). Only a matched-only template may.
   */
  claimsAction: boolean;
  /** The facts the text may state; the reply's provenance lists those of them that were known. */
  states: readonly ReplyFactName[];
  /** The reply, from the business's name and the facts in {@link states}. */
  render(business: string, facts: ReplyFactValues): string;
}

/** What a template for a matched record may state: the customer's first name and the matched reference. */
const RECORD_FACTS = ["customerFirstName", "orderNumber", "accountNumber"] as const;
const SLOT_FACTS = ["day", "time"] as const;
const CALL_BACK_WITH_NUMBER = "please call us back with the number from your confirmation.";

/**
 * The closed set of replies, by id. Templates for a matched record keep the business's promises;
 * the others only thank, say what was heard or not found, and ask the caller to call back.
 */
export const REPLY_TEMPLATES: { readonly [Id in ReplyTemplateId]: ReplyTemplate<Id> } = {
  "order-problem/damaged/matched": matched(
    "order-problem/damaged/matched",
    "We're sorry it arrived damaged; a replacement is on its way.",
  ),
  "order-problem/not-arrived/matched": matched(
    "order-problem/not-arrived/matched",
    "We're sorry it hasn't arrived; we're tracking it down and will update you today.",
  ),
  "order-problem/wrong-item/matched": matched(
    "order-problem/wrong-item/matched",
    "We're sorry we sent the wrong item; the right one is on its way, with a return label for the other.",
  ),
  "order-problem/unspecified/matched": matched(
    "order-problem/unspecified/matched",
    "We're sorry there's a problem with your order; we're looking into it and will call you back today.",
  ),
  "order-problem/any/unmatched": unmatched(
    "order-problem/any/unmatched",
    "Thanks for letting us know about the problem with your order. We couldn't tell which order it is; " +
      "please call us back with the order number from your confirmation.",
  ),
  "reschedule/matched": {
    id: "reschedule/matched",
    matchedOnly: true,
    claimsAction: true,
    states: [...RECORD_FACTS, ...SLOT_FACTS],
    render: (business, facts) => {
      const slot = when(facts);
      return `${matchedGreeting(business, facts)} ${
        slot
          ? `We've noted your request to move your appointment to ${slot}; we'll confirm the new time shortly.`
          : "We got your request to reschedule; we'll call you to find a new time."
      }`;
    },
  },
  "reschedule/unmatched": {
    id: "reschedule/unmatched",
    matchedOnly: false,
    claimsAction: false,
    states: SLOT_FACTS,
    render: (business, facts) => {
      const slot = when(facts);
      return (
        `Hi, this is ${business}. Thanks for your message; we heard you'd like to ` +
        `${slot ? `move your appointment to ${slot}` : "reschedule your appointment"}. ` +
        `We couldn't find your booking from this message; ${CALL_BACK_WITH_NUMBER}`
      );
    },
  },
  "billing/matched": matched(
    "billing/matched",
    "We're reviewing the charges on your bill and will get back to you within one business day.",
  ),
  "billing/unmatched": unmatched(
    "billing/unmatched",
    "Thanks for your message about your bill. We couldn't tell which account it's about; " +
      "please call us back with the account number from your bill.",
  ),
  "cancellation/matched": matched(
    "cancellation/matched",
    "We've received your cancellation request and will confirm it shortly.",
  ),
  "cancellation/unmatched": unmatched(
    "cancellation/unmatched",
    "Thanks for your message; we heard you'd like to cancel. We couldn't tell which order or account " +
      `it's about; ${CALL_BACK_WITH_NUMBER}`,
  ),
  "callback-request/matched": {
    ...matched("callback-request/matched", "We're returning your call: how can we help?"),
    claimsAction: false,
  },
  "callback-request/unmatched": unmatched(
    "callback-request/unmatched",
    "We're returning your call: how can we help?",
  ),
  "other/matched": matched(
    "other/matched",
    "Thanks for your message; someone from our team will call you back shortly.",
  ),
  "other/unmatched": unmatched(
    "other/unmatched",
    "Thanks for your message; if there's anything we can do, please call us back.",
  ),
  "not-found-reference": {
    id: "not-found-reference",
    matchedOnly: false,
    claimsAction: false,
    states: ["orderNumber", "accountNumber"],
    render: (business, { orderNumber, accountNumber }) => {
      const reference = orderNumber ? `order ${orderNumber}` : `account ${accountNumber}`;
      return `Hi, this is ${business} returning your call. We couldn't find ${reference} in our records; ${CALL_BACK_WITH_NUMBER}`;
    },
  },
  "no-message": {
    id: "no-message",
    matchedOnly: false,
    claimsAction: false,
    states: [],
    render: (business) =>
      `Hi, this is ${business}. We missed your call; please call us back if there's anything we can do.`,
  },
};

/** A template for a matched record: the greeting by first name and reference, then `body`. */
function matched<Id extends ReplyTemplateId>(id: Id, body: string): ReplyTemplate<Id> {
  return {
    id,
    matchedOnly: true,
    claimsAction: true,
    states: RECORD_FACTS,
    render: (business, facts) => `${matchedGreeting(business, facts)} ${body}`,
  };
}

/** A template that states no fact: a greeting that names nobody, then `body`. */
function unmatched<Id extends ReplyTemplateId>(id: Id, body: string): ReplyTemplate<Id> {
  return {
    id,
    matchedOnly: false,
    claimsAction: false,
    states: [],
    render: (business) => `Hi, this is ${business}. ${body}`,
  };
}

/** "Hi Maria, this is Acme support about order 4271." */
function matchedGreeting(
  business: string,
  { customerFirstName, orderNumber, accountNumber }: ReplyFactValues,
) {
  const name = customerFirstName ? ` ${customerFirstName}` : "";
  const about = orderNumber
    ? ` about order ${orderNumber}`
    : accountNumber
      ? ` about account ${accountNumber}`
      : "";
  return `Hi${name}, this is ${business}${about}.`;
}

/** "Thursday at 3:30", or whichever of the two is known. */
function when({ day, time }: ReplyFactValues): string | undefined {
  if (day && time) return `${day} at ${time}`;
  return day ?? time;
}
