import type { Entities, Intent, RecordMatch, ReplyFact, ReplyProvenance } from "@voxtrail/core";
import type { OrderProblem } from "./intent";
import {
  REPLY_TEMPLATES,
  type ReplyFactName,
  type ReplyFactValues,
  type ReplyTemplate,
  type ReplyTemplateId,
} from "./reply-templates";

/** What the summary and the reply are written from. */
export interface Findings {
  intent: Intent;
  entities: Entities;
  match: RecordMatch;
  /** Set for an `order-problem` when the caller said what went wrong. */
  problem?: OrderProblem;
}

/**
 * One sentence for the business: who called, what they want, about which order or account, and
 * the number to call back; it never repeats the transcript.
 *
 * @example
 * summarize(findings); // "Maria Lopez reports that order 4271 arrived damaged; call back on 555-123-4567."
 */
export function summarize({ intent, entities, match, problem }: Findings): string {
  if (intent === "no-message") return "The caller left no message.";
  const record = match.outcome === "found" ? match.record : undefined;
  const who = record?.customerName ?? entities.callerName ?? "The caller";
  const notFound = match.outcome === "not-found" ? " (not in the records)" : "";
  const order = entities.orderNumber ? `order ${entities.orderNumber}${notFound}` : undefined;
  const account = entities.accountNumber ? `account ${entities.accountNumber}${notFound}` : undefined;
  const callback = entities.callbackNumber ? formatPhone(entities.callbackNumber) : undefined;

  const what = {
    "order-problem": orderProblemSummary(order, problem),
    reschedule: `asks to reschedule${when(entities) ? ` to ${when(entities)}` : ""}`,
    billing: `has a billing question${account || order ? ` about ${account ?? order}` : ""}`,
    cancellation: `asks to cancel ${order ?? account ?? "an order or service"}`,
    "callback-request": `asks for a call back${callback ? ` on ${callback}` : ""}`,
    other: "left a message that fits no request type",
  }[intent];
  const callbackNote = callback && intent !== "callback-request" ? `; call back on ${callback}` : "";
  return `${who} ${what}${callbackNote}.`;
}

/** The reply the business gives, and how it was written. */
export interface Reply {
  text: string;
  provenance: ReplyProvenance;
}

/**
 * What the business says back when it returns the call or texts, from one of the
 * {@link REPLY_TEMPLATES}: one for a matched record greets the customer by first name, names the
 * order or account it matched on and may promise an action; otherwise the reply reveals nothing
 * from the records and promises nothing. The provenance lists every fact the text states and
 * whether it came from the record or from the caller.
 *
 * @example
 * writeReply(findings, "Acme support").text;
 * // "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; a replacement is on its way."
 */
export function writeReply(
  findings: Findings,
  business: string,
  templates: { readonly [Id in ReplyTemplateId]: ReplyTemplate<Id> } = REPLY_TEMPLATES,
): Reply {
  const record = relied(findings.entities, findings.match);
  const template = templates[chooseTemplate(findings, record)];
  const facts = knownFacts(findings.entities, record).filter(({ fact }) => template.states.includes(fact));
  const values: ReplyFactValues = Object.fromEntries(facts.map(({ fact, value }) => [fact, value]));
  return { text: template.render(business, values), provenance: { template: template.id, facts } };
}

/**
 * The record a reply may rely on: the one found, only if it matched on the reference the caller
 * gave (their order number, else their account number). A record found by the caller's phone
 * number while the order they named is not in the records is another order: promising anything
 * about it would answer a question the caller did not ask.
 */
function relied(
  entities: Findings["entities"],
  match: RecordMatch,
): (RecordMatch & { outcome: "found" }) | undefined {
  if (match.outcome !== "found") return undefined;
  const reference = entities.orderNumber
    ? "orderNumber"
    : entities.accountNumber
      ? "accountNumber"
      : undefined;
  return reference === undefined || match.matchedOn === reference ? match : undefined;
}

/**
 * The template for the findings and the record the reply relies on: `no-message`;
 * `not-found-reference` when the caller gave an order or account number that is not in the records
 * (even if their phone number matched another record); else by intent (and problem), matched or not.
 */
function chooseTemplate(
  { intent, entities, problem }: Findings,
  record: ReturnType<typeof relied>,
): ReplyTemplateId {
  if (intent === "no-message") return "no-message";
  const found = record !== undefined;
  if (!found && (entities.orderNumber || entities.accountNumber)) return "not-found-reference";
  const outcome = found ? "matched" : "unmatched";
  if (intent !== "order-problem") return `${intent}/${outcome}`;
  return found ? `order-problem/${problem ?? "unspecified"}/matched` : "order-problem/any/unmatched";
}

/**
 * The facts a reply may state: from the record it relies on, the customer's first name and the
 * number it matched on; otherwise the order (else account) number the caller gave; and the day and time the
 * caller asked for.
 */
function knownFacts(entities: Entities, found: ReturnType<typeof relied>): ReplyFact[] {
  const facts: ReplyFact[] = [];
  const add = (fact: ReplyFactName, value: string | undefined, source: ReplyFact["source"]) => {
    if (value) facts.push({ fact, value, source });
  };
  if (found) {
    const { matchedOn, record } = found;
    add("customerFirstName", record.customerName?.split(/\s+/)[0], "record");
    if (matchedOn === "orderNumber") add("orderNumber", record.orderNumber, "record");
    if (matchedOn === "accountNumber") add("accountNumber", record.accountNumber, "record");
  } else if (entities.orderNumber) {
    add("orderNumber", entities.orderNumber, "caller");
  } else {
    add("accountNumber", entities.accountNumber, "caller");
  }
  add("day", entities.day, "caller");
  add("time", entities.time, "caller");
  return facts;
}

/** "555-123-4567" for ten digits, "123-4567" for seven, the digits otherwise. */
function formatPhone(digits: string): string {
  if (digits.length === 10) return `${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`;
  if (digits.length === 7) return `${digits.slice(0, 3)}-${digits.slice(3)}`;
  return digits;
}

function when({ day, time }: Entities): string | undefined {
  if (day && time) return `${day} at ${time}`;
  return day ?? time;
}

function orderProblemSummary(order: string | undefined, problem: OrderProblem | undefined): string {
  const which = order ?? "an order";
  switch (problem) {
    case "damaged":
      return `reports that ${which} arrived damaged`;
    case "not-arrived":
      return `reports that ${which} has not arrived`;
    case "wrong-item":
      return `reports a wrong item in ${which}`;
    default:
      return `reports a problem with ${which}`;
  }
}
