import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { normalizeForTranscription } from "@voxtrail/audio";
import { type Entities, type Intent, VoicemailRecord } from "@voxtrail/core";
import { beforeAll, describe, expect, test } from "vitest";
import { LocalReasoner } from "../src/reasoning/local-reasoner";
import { JsonlRecordLookup } from "../src/records/jsonl-record-lookup";
import { PocketsphinxTranscriber } from "../src/transcription/pocketsphinx";

// The local reasoner on what pocketsphinx actually hears in the fixture voicemails: the wideband
// copies must give the intent, the key entities and the record; the telephony copies, which
// pocketsphinx hears much worse (see transcription-pocketsphinx.test.ts), the intent.

const FIXTURES = fileURLToPath(new URL("../../../fixtures/", import.meta.url));
const HAVE_POCKETSPHINX = spawnSync("pocketsphinx_continuous", ["-h"]).error === undefined;

const EXPECTED: Record<string, { intent: Intent; entities: Entities; recordId?: string }> = {
  "damaged-order": {
    intent: "order-problem",
    entities: { orderNumber: "4271", callbackNumber: "5551234567" },
    recordId: "ord-4271",
  },
  reschedule: {
    intent: "reschedule",
    entities: { day: "Thursday", time: "3:30", callbackNumber: "5558672341" },
    recordId: "acct-7720",
  },
  billing: {
    intent: "billing",
    entities: { accountNumber: "8153", callbackNumber: "5552029814" },
    recordId: "acct-8153",
  },
  cancellation: { intent: "cancellation", entities: { orderNumber: "6609", callbackNumber: "5553441212" } },
  "no-message": { intent: "no-message", entities: {} },
};

describe.skipIf(!HAVE_POCKETSPHINX)(
  HAVE_POCKETSPHINX
    ? "LocalReasoner on pocketsphinx transcripts of the fixture voicemails"
    : "LocalReasoner on pocketsphinx transcripts of the fixture voicemails (skipped: pocketsphinx_continuous is not installed; run scripts/setup.sh)",
  () => {
    const transcriber = new PocketsphinxTranscriber();
    const reasoner = new LocalReasoner();
    let records: JsonlRecordLookup;
    beforeAll(async () => {
      records = await JsonlRecordLookup.fromFile(join(FIXTURES, "records", "records.jsonl"));
    });

    async function reasonAbout(file: string): Promise<VoicemailRecord> {
      const { wav } = normalizeForTranscription(await readFile(join(FIXTURES, "voicemail", file)));
      const transcript = await transcriber.transcribe(wav, { language: "en" });
      return VoicemailRecord.parse(await reasoner.reason(transcript, records));
    }

    test.each(Object.entries(EXPECTED))(
      "wideband %s: intent, key entities and record",
      async (name, expected) => {
        const record = await reasonAbout(`${name}.wav`);
        expect(record.intent).toBe(expected.intent);
        expect(record.entities).toMatchObject(expected.entities);
        if (expected.recordId) {
          expect(record.match).toMatchObject({ outcome: "found", record: { id: expected.recordId } });
        } else {
          expect(record.match.outcome).toBe("not-found");
          expect(record.replyText).not.toMatch(/Hi [A-Z]/);
        }
      },
      180_000,
    );

    test.each(Object.entries(EXPECTED))(
      "telephony %s: intent",
      async (name, expected) => {
        expect((await reasonAbout(join("telephony", `${name}.wav`))).intent).toBe(expected.intent);
      },
      180_000,
    );
  },
);
