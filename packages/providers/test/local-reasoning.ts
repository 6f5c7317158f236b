import { LOCAL_BOUNDARY, type Transcript, VoicemailRecord } from "@voxtrail/core";
import { LocalReasoner } from "../src/reasoning/local-reasoner";
import { JsonlRecordLookup } from "../src/records/jsonl-record-lookup";

/** The business records the local reasoner's tests look voicemails up in. */
export const RECORDS = new JsonlRecordLookup(
  [
    {
      type: "order",
      id: "ord-4271",
      orderNumber: "4271",
      customerName: "Maria Lopez",
      phone: "555-123-4567",
    },
    {
      type: "account",
      id: "acct-7720",
      accountNumber: "7720",
      customerName: "David Chen",
      phone: "555-867-2341",
    },
    {
      type: "account",
      id: "acct-8153",
      accountNumber: "8153",
      customerName: "James Miller",
      phone: "555-202-9814",
    },
    { type: "order", id: "ord-5034", orderNumber: "5034", customerName: "Tom Baker", phone: "555-730-1204" },
  ]
    .map((record) => JSON.stringify(record))
    .join("\n"),
);

/** A clean transcript of `text`, as a transcriber would hand it over. */
export function transcript(text: string): Transcript {
  return {
    text,
    words: [],
    language: "en",
    audioMs: 10_000,
    processor: { provider: "test", model: "test", version: "0", boundary: LOCAL_BOUNDARY },
  };
}

/** The local reasoner's record for `text`, against {@link RECORDS}. */
export async function reason(text: string): Promise<VoicemailRecord> {
  return VoicemailRecord.parse(await new LocalReasoner().reason(transcript(text), RECORDS));
}
