import {
  LOCAL_BOUNDARY,
  type Processor,
  type Reasoner,
  type RecordLookup,
  type Transcript,
  type VoicemailRecord,
} from "@voxtrail/core";
import { readEntities } from "./entities";
import { classifyIntent, orderProblem } from "./intent";
import { matchRecord } from "./record-match";
import { summarize, writeReply } from "./reply";
import { kindsFromRecords } from "./unnamed-numbers";

/** Options of {@link LocalReasoner}. */
export interface LocalReasonerOptions {
  /** Who the reply says is calling back: "Hi Maria, this is <businessName> ..."; default "Acme support". */
  businessName?: string;
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
    version: "3",
    boundary: LOCAL_BOUNDARY,
  };
  readonly #businessName: string;

  constructor(options: LocalReasonerOptions = {}) {
    this.#businessName = options.businessName ?? "Acme support";
  }

  /** Builds the voicemail's structured record from its transcript, looking the caller up in `records`. */
  async reason(transcript: Transcript, records: RecordLookup): Promise<VoicemailRecord> {
    const reading = readEntities(transcript.text);
    const entities = await kindsFromRecords(reading.entities, reading.unnamed, records);
    const intent = classifyIntent(transcript.text, entities);
    const match = await matchRecord(entities, records);
    const problem = intent === "order-problem" ? orderProblem(transcript.text) : undefined;
    const findings = { intent, entities, match, ...(problem ? { problem } : {}) };
    const reply = writeReply(findings, this.#businessName);
    return {
      intent,
      entities,
      summary: summarize(findings),
      match,
      replyText: reply.text,
      reply: reply.provenance,
      processor: this.processor,
    };
  }
}
