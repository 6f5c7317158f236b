import type { Entities, Intent, RecordMatch } from "@voxtrail/core";
import type { OrderProblem } from "./intent";

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

/**
 * What the business says back when it returns the call or texts: greets the customer by first name
 * and names their order or account only when the record was found; otherwise a generic reply that
 * reveals nothing from the records.
 *
 * @example
 * replyText(findings, "Acme support");
 * // "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; a replacement is on its way."
 */
export function replyText({ intent, entities, match, problem }: Findings, business: string): string {
  if (intent === "no-message") {
    return `Hi, this is ${business}. We missed your call; please call us back if there's anything we can do.`;
  }
  if (match.outcome === "not-found" && (entities.orderNumber || entities.accountNumber)) {
    const reference = entities.orderNumber
      ? `order ${entities.orderNumber}`
      : `account ${entities.accountNumber}`;
    return `Hi, this is ${business} returning your call. We couldn't find ${reference} in our records; please call us back with the number from your confirmation.`;
  }
  const record = match.outcome === "found" ? match.record : undefined;
  const firstName = record?.customerName?.split(/\s+/)[0];
  const greeting = `Hi${firstName ? ` ${firstName}` : ""}, this is ${business}${subject(match)}.`;
  const slot = when(entities);
  const body = {
    "order-problem": orderProblemReply(problem),
    reschedule: slot
      ? `We've noted your request to move your appointment to ${slot}; we'll confirm the new time shortly.`
      : "We got your request to reschedule; we'll call you to find a new time.",
    billing: "We're reviewing the charges on your bill and will get back to you within one business day.",
    cancellation: "We've received your cancellation request and will confirm it shortly.",
    "callback-request": "We're returning your call: how can we help?",
    other: "Thanks for your message; someone from our team will call you back shortly.",
  }[intent];
  return `${greeting} ${body}`;
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

/** " about order 4271" when the record was found by the number the caller gave. */
function subject(match: RecordMatch): string {
  if (match.outcome !== "found") return "";
  const { matchedOn, record } = match;
  if (matchedOn === "orderNumber" && record.orderNumber) return ` about order ${record.orderNumber}`;
  if (matchedOn === "accountNumber" && record.accountNumber) return ` about account ${record.accountNumber}`;
  return "";
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

function orderProblemReply(problem: OrderProblem | undefined): string {
  switch (problem) {
    case "damaged":
      return "We're sorry it arrived damaged; a replacement is on its way.";
    case "not-arrived":
      return "We're sorry it hasn't arrived; we're tracking it down and will update you today.";
    case "wrong-item":
      return "We're sorry we sent the wrong item; the right one is on its way, with a return label for the other.";
    default:
      return "We're sorry there's a problem with your order; we're looking into it and will call you back today.";
  }
}
