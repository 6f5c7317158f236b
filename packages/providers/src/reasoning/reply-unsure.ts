import type { CheckedFact, FactReview } from "@voxtrail/core";
import type { Reply } from "./reply";

/** The template id of {@link unsureReply}. */
export const UNSURE_TEMPLATE = "unsure";

/** How the reply names a fact it could not make out. */
const FACT_NAMES: Readonly<Record<CheckedFact, string>> = {
  intent: "what you need",
  orderNumber: "your order number",
  accountNumber: "your account number",
  callbackNumber: "the number to call you back on",
  day: "the day you asked for",
};

/**
 * The reply when facts are held for review: it says what could not be made out and asks the
 * caller to call back, and states no fact at all (nothing heard, nothing from the records), so a
 * misheard number is never said back as if it were known.
 *
 * @example
 * unsureReply([{ fact: "orderNumber", ... }], "Acme support").text;
 * // "Hi, this is Acme support. Thanks for your message. We couldn't make out your order number clearly; please call us back so we can get it right."
 */
export function unsureReply(held: readonly Pick<FactReview, "fact">[], business: string): Reply {
  const names = [...new Set(held.map(({ fact }) => FACT_NAMES[fact]))];
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
  return {
    text:
      `Hi, this is ${business}. Thanks for your message. We couldn't make out ${list} clearly; ` +
      "please call us back so we can get it right.",
    provenance: { template: UNSURE_TEMPLATE, facts: [] },
  };
}
