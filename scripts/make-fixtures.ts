/**
 * Writes the voicemail and records fixtures under fixtures/: five voicemails spoken by flite
 * (16 kHz PCM and an 8 kHz mu-law telephony copy of each), their scripts, and the business records
 * the voicemails refer to, and one voicemail spoken by espeak-ng (a voice no tuning step has heard)
 * that the embedded transcriber hears too poorly to be sure of its callback number
 * (fixtures/review/). Deterministic: running it again writes the same bytes.
 *
 *   npx tsx scripts/make-fixtures.ts
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeMono16, encodeMuLaw, encodeSamples, resample, writeWav } from "@voxtrail/audio";
import { EspeakEngine, FliteEngine, type FliteVoice } from "@voxtrail/local";

/** Part of a voicemail: words flite speaks, or a pause in milliseconds. */
type Part = string | number;

interface Voicemail {
  voice: FliteVoice;
  parts: Part[];
}

const SAMPLE_RATE = 16000;
const TELEPHONY_RATE = 8000;
/** Silence before the caller speaks (after the beep) and before they hang up. */
const LEAD_MS = 400;
const TAIL_MS = 600;

const VOICEMAILS: Record<string, Voicemail> = {
  "damaged-order": {
    voice: "rms",
    parts: [
      "Hi, this is Maria Lopez. I am calling about order number four two seven one.",
      "It arrived today and the lamp inside was broken, the glass is cracked.",
      "Please call me back at five five five, one two three, four five six seven. Thank you.",
    ],
  },
  reschedule: {
    voice: "kal16",
    parts: [
      "Hello, this is David Chen. I have a cleaning appointment booked for Friday morning, and I need to move it.",
      "Could we do Friday...",
      300,
      "actually, sorry, Thursday at three thirty instead?",
      "My number is five five five, eight six seven, two three four one. Thanks.",
    ],
  },
  billing: {
    voice: "awb",
    parts: [
      "Hi, my name is James Miller, my account number is eight one five three.",
      "I was charged twice on my last invoice, the same payment shows up two times on my card.",
      "Can someone look at the bill and refund the extra charge?",
      "Call me at five five five, two zero two, nine eight one four.",
    ],
  },
  cancellation: {
    voice: "awb",
    parts: [
      "Hello, this is Sarah Jones. I want to cancel my order, order number six six zero nine.",
      "I don't need it anymore, so please cancel it and refund me.",
      "You can reach me at five five five, three four four, one two one two. Thank you, bye.",
    ],
  },
  "no-message": {
    voice: "slt",
    parts: [2500, "Um, hi.", 1500, "Uh...", 1200, "never mind. Bye.", 2500],
  },
};

/** Orders and accounts; the cancellation's order and number are deliberately absent. */
const RECORDS = [
  {
    type: "order",
    id: "ord-4271",
    orderNumber: "4271",
    customerName: "Maria Lopez",
    phone: "555-123-4567",
    status: "delivered",
    item: "table lamp",
  },
  {
    type: "order",
    id: "ord-9182",
    orderNumber: "9182",
    customerName: "Maria Lopez",
    phone: "555-123-4567",
    status: "shipped",
    item: "lamp shades (2)",
  },
  {
    type: "account",
    id: "acct-7720",
    accountNumber: "7720",
    customerName: "David Chen",
    phone: "555-867-2341",
    status: "active",
    appointment: "Friday 10:00, home cleaning",
  },
  {
    type: "account",
    id: "acct-8153",
    accountNumber: "8153",
    customerName: "James Miller",
    phone: "555-202-9814",
    status: "active",
    plan: "monthly cleaning",
  },
  {
    type: "order",
    id: "ord-3158",
    orderNumber: "3158",
    customerName: "Priya Patel",
    phone: "555-410-7788",
    status: "shipped",
    item: "desk chair",
  },
  {
    type: "order",
    id: "ord-5034",
    orderNumber: "5034",
    customerName: "Tom Baker",
    phone: "555-730-1204",
    status: "processing",
    item: "bookshelf",
  },
  {
    type: "account",
    id: "acct-4409",
    accountNumber: "4409",
    customerName: "Ahmed Khan",
    phone: "555-618-3390",
    status: "active",
    plan: "quarterly cleaning",
  },
  {
    type: "order",
    id: "ord-7316",
    orderNumber: "7316",
    customerName: "Grace Kim",
    phone: "555-244-9051",
    status: "delivered",
    item: "rug",
  },
  {
    type: "account",
    id: "acct-2598",
    accountNumber: "2598",
    customerName: "Robert Diaz",
    phone: "555-903-6612",
    status: "past due",
    plan: "monthly cleaning",
  },
  { type: "account", id: "acct-6620", accountNumber: "6620", customerName: "Linda Park", status: "closed" },
];

const root = join(import.meta.dirname, "..", "fixtures");
const flite = new FliteEngine();

async function speak(voicemail: Voicemail): Promise<Int16Array> {
  const pieces: Int16Array[] = [silence(LEAD_MS)];
  for (const part of voicemail.parts) {
    if (typeof part === "number") {
      pieces.push(silence(part));
      continue;
    }
    const { samples, sampleRate } = decodeMono16(await flite.synthesizeWav(part, voicemail.voice));
    if (sampleRate !== SAMPLE_RATE)
      throw new Error(`flite spoke at ${sampleRate} Hz, expected ${SAMPLE_RATE}`);
    pieces.push(samples);
  }
  pieces.push(silence(TAIL_MS));
  const audio = new Int16Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    audio.set(piece, offset);
    offset += piece.length;
  }
  return audio;
}

function silence(ms: number): Int16Array {
  return new Int16Array((SAMPLE_RATE * ms) / 1000);
}

function scriptOf(voicemail: Voicemail): string {
  return voicemail.parts.filter((part) => typeof part === "string").join(" ");
}

await mkdir(join(root, "voicemail", "telephony"), { recursive: true });
await mkdir(join(root, "records"), { recursive: true });
const scripts: Record<string, string> = {};
for (const [name, voicemail] of Object.entries(VOICEMAILS)) {
  const samples = await speak(voicemail);
  const wideband = writeWav(
    { encoding: "pcm_s16le", sampleRate: SAMPLE_RATE, channels: 1 },
    encodeSamples(samples, "pcm_s16le"),
  );
  const telephony = writeWav(
    { encoding: "pcm_mulaw", sampleRate: TELEPHONY_RATE, channels: 1 },
    encodeMuLaw(resample(samples, SAMPLE_RATE, TELEPHONY_RATE)),
  );
  await writeFile(join(root, "voicemail", `${name}.wav`), wideband);
  await writeFile(join(root, "voicemail", "telephony", `${name}.wav`), telephony);
  scripts[name] = scriptOf(voicemail);
  console.log(`${name}: ${voicemail.voice}, ${(samples.length / SAMPLE_RATE).toFixed(2)} s`);
}
await writeFile(join(root, "voicemail", "scripts.json"), `${JSON.stringify(scripts, null, 2)}\n`);

// The billing voicemail in espeak-ng's en-us voice with its female variant f3, as a phone line
// delivers it: the transcriber takes a callback number from it with a confidence far below the
// review threshold, so the job is held for review (test/e2e/voxtrail-run-review.test.ts).
const unclear = decodeMono16(
  await new EspeakEngine().synthesizeWav(scripts.billing ?? "", { voice: "en-us+f3" }),
);
const unclearCall = new Int16Array([
  ...silence(LEAD_MS),
  ...resample(unclear.samples, unclear.sampleRate, SAMPLE_RATE),
  ...silence(TAIL_MS),
]);
await mkdir(join(root, "review"), { recursive: true });
await writeFile(
  join(root, "review", "billing-unclear.wav"),
  writeWav(
    { encoding: "pcm_mulaw", sampleRate: TELEPHONY_RATE, channels: 1 },
    encodeMuLaw(resample(unclearCall, SAMPLE_RATE, TELEPHONY_RATE)),
  ),
);
console.log(`review/billing-unclear: espeak-ng en-us+f3, ${(unclearCall.length / SAMPLE_RATE).toFixed(2)} s`);
await writeFile(
  join(root, "records", "records.jsonl"),
  RECORDS.map((record) => JSON.stringify(record))
    .join("\n")
    .concat("\n"),
);
console.log(`wrote ${Object.keys(VOICEMAILS).length} voicemails and ${RECORDS.length} records under ${root}`);
