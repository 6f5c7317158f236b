import {
  LOCAL_BOUNDARY,
  type Processor,
  primaryLanguage,
  quoteLanguage,
  type Reasoner,
  ReasonerLanguageUnsupported,
  type RecordLookup,
  type Transcript,
  type VoicemailRecord,
} from "@voxtrail/core";
import { readEntities } from "./entities";
import { checkFacts, heldNote, REVIEW_THRESHOLD, trustedEntities } from "./fact-confidence";
import { classifyIntent, orderProblem } from "./intent";
import { matchRecord } from "./record-match";
import { summarize, writeReply } from "./reply";
import { REPLY_TEMPLATES_ES, unsureReplyEs } from "./reply-templates-es";
import { unsureReply } from "./reply-unsure";
import { readSpanish } from "./spanish-reading";
import { kindsFromRecords } from "./unnamed-numbers";

/** Options of {@link LocalReasoner}. */
export interface LocalReasonerOptions {
  /** Who the reply says is calling back: "Hi Maria, this is <businessName> ..."; default "Acme support". */
  businessName?: string;
  /**
   * Confidence below which a fact the transcript gave is held for review ({@link checkFacts});
   * default {@link REVIEW_THRESHOLD}, 0 to hold none for its words' confidence (the call and length rules still hold).
   */
  reviewBelow?: number;
}

/**
 * A deterministic, rule-based reasoner that runs in this process (boundary `local`): entities
 * from spoken digits, days and times, with the caller's last correction winning
 * ({@link readEntities}), and a number whose cue was lost placed by the one record kind that
 * holds it ({@link kindsFromRecords}); intent by weighted keywords ({@link classifyIntent}); the business
 * record from the lookup (order, then account, then callback number); a one-sentence summary; and
 * the reply the business would give, from a named template that promises an action only when the
 * record was found, with the facts it states and their sources ({@link writeReply}). The
 * transcript is only ever read as data: nothing in it is followed as an instruction.
 *
 * Each number, the day and the intent carry the recogniser's confidence in the words they came
 * from ({@link checkFacts}); one below `reviewBelow` stays in the record as heard but is listed in
 * its `review`, is not used to find the business record, and the reply states no fact: it says
 * what could not be made out and asks for a call back ({@link unsureReply}).
 *
 * @example
 * const reasoner = new LocalReasoner({ businessName: "Acme support" });
 * const records = await JsonlRecordLookup.fromFile("fixtures/records/records.jsonl");
 * const record = await reasoner.reason(transcript, records);
 * record.intent; // "order-problem"
 * record.entities; // { orderNumber: "4271", callbackNumber: "5551234567", callerName: "Maria Lopez" }
 * record.replyText; // "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; ..."
 * record.reply; // { template: "order-problem/damaged/matched", facts: [{ fact: "customerFirstName", ... }, ...] }
 */
export class LocalReasoner implements Reasoner {
  readonly processor: Processor = {
    provider: "local-rules",
    model: "voxtrail-local-reasoner",
    version: "5",
    boundary: LOCAL_BOUNDARY,
  };
  readonly #businessName: string;
  readonly #reviewBelow: number;

  constructor(options: LocalReasonerOptions = {}) {
    this.#businessName = options.businessName ?? "Acme support";
    this.#reviewBelow = options.reviewBelow ?? REVIEW_THRESHOLD;
  }

  /** Builds the voicemail's structured record from its transcript, looking the caller up in `records`. */
  async reason(heard: Transcript, records: RecordLookup): Promise<VoicemailRecord> {
    const spanish = spanishOrEnglish(heard.language);
    // Spanish is read through its English reading (number words, days, requests); the reply is Spanish.
    const transcript = spanish ? readSpanish(heard) : heard;
    const reading = readEntities(transcript.text);
    const entities = await kindsFromRecords(reading.entities, reading.unnamed, records);
    const intent = classifyIntent(transcript.text, entities);
    const lengths = (await records.numberLengths?.()) ?? {};
    const { confidence, review } = checkFacts(transcript, intent, entities, this.#reviewBelow, {
      lengths,
      heard: heard.words,
    });
    const trusted = trustedEntities(entities, review);
    const match = await matchRecord(trusted, records);
    const problem = intent === "order-problem" ? orderProblem(transcript.text) : undefined;
    const findings = { intent, entities: trusted, match, ...(problem ? { problem } : {}) };
    const reply = spanish
      ? review.length > 0
        ? unsureReplyEs(review, this.#businessName)
        : writeReply(findings, this.#businessName, REPLY_TEMPLATES_ES)
      : review.length > 0
        ? unsureReply(review, this.#businessName)
        : writeReply(findings, this.#businessName);
    return {
      intent,
      entities,
      summary: summarize(findings) + heldNote(review),
      match,
      replyText: reply.text,
      reply: reply.provenance,
      ...(Object.keys(confidence).length > 0 ? { confidence } : {}),
      ...(review.length > 0 ? { review } : {}),
      processor: this.processor,
    };
  }
}

/** The languages {@link LocalReasoner} answers in (ISO 639-1). */
export const LOCAL_REASONER_LANGUAGES = ["en", "es"] as const;

/**
 * Whether a transcript in `language` is Spanish (`true`) or English (`false`);
 * `ReasonerLanguageUnsupported` for any other: a reply is never written in a language the caller
 * did not speak.
 */
function spanishOrEnglish(language: string): boolean {
  const primary = primaryLanguage(language);
  if (primary === "es") return true;
  if (primary === "en") return false;
  throw new ReasonerLanguageUnsupported(
    `the local reasoner answers in ${LOCAL_REASONER_LANGUAGES.join(" and ")}; the transcript is in ` +
      `${quoteLanguage(language)}: choose a reasoner that takes it (bedrock), or remove the language from the stage`,
  );
}
