/**
 * Synthesis time to first audio on the local Sonic endpoint: `synthesize.ttfb` as the Sonic
 * synthesizer records it (request sent -> first audio chunk) through the real SageMaker Runtime
 * client, for the replies the bundled voicemails get (each normalised, transcribed by pocketsphinx
 * and reasoned over against the bundled records, as `voxtrail run` does), in the reply format a run
 * writes. Three endpoints answer the same replies, alternating which goes first:
 *
 * - `sentences`: the endpoint as it is: one sentence at a time, on flite processes started ahead;
 * - `today`: the whole reply rendered before any audio goes out, in a flite process started for
 *   the call, as the endpoint did before it spoke sentence by sentence;
 * - `whole`: the whole reply rendered first, on a flite process started ahead: what sentence
 *   streaming alone gains over it.
 *
 * Beside each ttfb it prints its two parts, split where the request's first byte was written to its
 * socket: `synthesize.clientSetup` (the SageMaker Runtime client's own time before that) and
 * `synthesize.wireTtfb` (from there to the first audio: the endpoint's and the network's).
 *
 * The two whole-reply sides are a bench-only engine ({@link WholeReply}), not a mode of the
 * product. Each request waits for the machine to settle after the one before (the endpoints start
 * their next flite process after each synthesis).
 */
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import {
  BYTES_PER_SAMPLE,
  decodeMono16,
  encodeSamples,
  normalizeForTranscription,
  writeWav,
} from "@voxtrail/audio";
import { openTempDir, removeTempDir } from "@voxtrail/functions/kernel";
import {
  BUNDLED_RECORDS_FILE,
  BUNDLED_VOICEMAILS_DIR,
  collectInputFiles,
  DEFAULT_REPLY_FORMAT,
  FliteEngine,
  FliteProcess,
  type FliteVoice,
  localSonicSynthesizer,
  type SonicEndpoint,
  splitSentences,
  startSonicEndpoint,
} from "@voxtrail/local";
import { JsonlRecordLookup, LocalReasoner, PocketsphinxTranscriber } from "@voxtrail/providers";
import { nearestRank } from "@voxtrail/report";
import { round1 } from "./stats";

/** The endpoints compared; see the file's comment. */
export const TTFB_SIDES = ["sentences", "today", "whole"] as const;
/** One of {@link TTFB_SIDES}. */
export type TtfbSide = (typeof TTFB_SIDES)[number];

/** Options of {@link benchSynthesisTtfb}. */
export interface SynthesisTtfbOptions {
  /** Passes over every reply, per side; 5 by default. */
  rounds?: number;
  log: (line: string) => void;
}

/** One side's samples (ms, in the order taken) and their percentiles (nearest rank). */
export interface TtfbSideFigures {
  ttfbMs: number[];
  ttfbP50Ms: number;
  ttfbP90Ms: number;
  /** `synthesize.wireTtfb`: the request's first byte written -> first audio (ttfb less the set-up). */
  wireTtfbP50Ms: number;
  wireTtfbP90Ms: number;
  /** `synthesize.clientSetup`: request sent -> its first byte written (the client's set-up). */
  clientSetupP50Ms: number;
  clientSetupP90Ms: number;
  /** `synthesize.total`: request sent -> stream done. */
  totalP50Ms: number;
  /**
   * Reply audio per request, ms: the two whole-reply sides send the same audio; sentence by sentence
   * it is a little longer (flite pauses at the start and end of each piece it speaks).
   */
  audioP50Ms: number;
}

/** What {@link benchSynthesisTtfb} measured. */
export interface SynthesisTtfbResult {
  replies: Array<{ voicemail: string; sentences: number; words: number }>;
  rounds: number;
  sides: Record<TtfbSide, TtfbSideFigures>;
  /** `sentences` ttfb p50 over `today`'s: the issue's figure (the goal: under 0.5). */
  ratio: number;
  /** `sentences` ttfb p50 over `whole`'s: what sentence streaming gives on its own. */
  streamingRatio: number;
}

/** Pause before each timed request, so the flite process an endpoint starts after a call is up. */
const SETTLE_MS = 500;

/** Measures every side on every reply, alternating; see the file's comment. */
export async function benchSynthesisTtfb(options: SynthesisTtfbOptions): Promise<SynthesisTtfbResult> {
  const rounds = options.rounds ?? 5;
  const replies = await fixtureReplies(options.log);
  const engines = {
    sentences: new FliteEngine(),
    today: new WholeReply("started-per-call"),
    whole: new WholeReply("started-ahead"),
  } satisfies Record<TtfbSide, FliteEngine>;
  const endpoints: SonicEndpoint[] = [];
  try {
    const speakers = {} as Record<TtfbSide, (text: string) => Promise<Sample>>;
    for (const side of TTFB_SIDES) {
      const engine = engines[side];
      const endpoint = await startSonicEndpoint({ engine });
      endpoints.push(endpoint);
      const synthesizer = localSonicSynthesizer(endpoint);
      speakers[side] = async (text) => {
        if (engine instanceof WholeReply) engine.next(text);
        return speak(synthesizer, text);
      };
    }
    // Untimed: the SDK's first send() builds what later ones reuse; flite's first run reads its files.
    for (const side of TTFB_SIDES) await speakers[side](replies[0]?.text ?? "Hello.");

    const samples = Object.fromEntries(TTFB_SIDES.map((side) => [side, [] as Sample[]])) as Record<
      TtfbSide,
      Sample[]
    >;
    for (let round = 0; round < rounds; round++) {
      for (const [index, reply] of replies.entries()) {
        const shift = (round + index) % TTFB_SIDES.length;
        for (const side of [...TTFB_SIDES.slice(shift), ...TTFB_SIDES.slice(0, shift)]) {
          await sleep(SETTLE_MS);
          const sample = await speakers[side](reply.text);
          samples[side].push(sample);
          options.log(
            `ttfb: round ${round + 1}/${rounds} ${reply.voicemail} ${side}: ttfb ${Math.round(sample.ttfbMs)} ms (set-up ${Math.round(sample.clientSetupMs)} + wire ${Math.round(sample.wireTtfbMs)}), total ${Math.round(sample.totalMs)} ms`,
          );
        }
      }
    }
    const sides = Object.fromEntries(TTFB_SIDES.map((side) => [side, figures(samples[side])])) as Record<
      TtfbSide,
      TtfbSideFigures
    >;
    return {
      replies: replies.map(({ voicemail, text }) => ({
        voicemail,
        sentences: splitSentences(text).length,
        words: text.split(/\s+/).length,
      })),
      rounds,
      sides,
      ratio: Number((sides.sentences.ttfbP50Ms / sides.today.ttfbP50Ms).toFixed(3)),
      streamingRatio: Number((sides.sentences.ttfbP50Ms / sides.whole.ttfbP50Ms).toFixed(3)),
    };
  } finally {
    for (const endpoint of endpoints) await endpoint.close();
  }
}

/** The bench's table: one line per side. */
export function synthesisTtfbTable(result: SynthesisTtfbResult): string {
  const lines = [
    "side        ttfb p50  ttfb p90  wire p50  wire p90  set-up p50  set-up p90  total p50  audio p50",
  ];
  const ms = (value: number, width: number) => `${Math.round(value)} ms`.padStart(width);
  for (const side of TTFB_SIDES) {
    const row = result.sides[side];
    lines.push(
      `${side.padEnd(10)}  ${ms(row.ttfbP50Ms, 8)}  ${ms(row.ttfbP90Ms, 8)}  ${ms(row.wireTtfbP50Ms, 8)}  ${ms(row.wireTtfbP90Ms, 8)}  ${ms(row.clientSetupP50Ms, 10)}  ${ms(row.clientSetupP90Ms, 10)}  ${ms(row.totalP50Ms, 9)}  ${ms(row.audioP50Ms, 9)}`,
    );
  }
  lines.push(
    `ttfb p50, sentences / today: ${result.ratio.toFixed(2)}x; sentences / whole: ${result.streamingRatio.toFixed(2)}x`,
  );
  return lines.join("\n");
}

interface Sample {
  ttfbMs: number;
  wireTtfbMs: number;
  clientSetupMs: number;
  totalMs: number;
  audioMs: number;
}

async function speak(synthesizer: ReturnType<typeof localSonicSynthesizer>, text: string): Promise<Sample> {
  const stream = synthesizer.synthesize({ text, language: "en", format: DEFAULT_REPLY_FORMAT });
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.byteLength;
  const timing = (name: string) => {
    const found = stream.timings().find((each) => each.name === name);
    if (!found) throw new Error(`the synthesizer recorded no ${name}`);
    return found.ms;
  };
  return {
    ttfbMs: timing("synthesize.ttfb"),
    wireTtfbMs: timing("synthesize.wireTtfb"),
    clientSetupMs: timing("synthesize.clientSetup"),
    totalMs: timing("synthesize.total"),
    audioMs:
      (bytes / BYTES_PER_SAMPLE[DEFAULT_REPLY_FORMAT.encoding] / DEFAULT_REPLY_FORMAT.sampleRate) * 1000,
  };
}

function figures(samples: Sample[]): TtfbSideFigures {
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const ttfb = sorted(samples.map((sample) => sample.ttfbMs));
  const wire = sorted(samples.map((sample) => sample.wireTtfbMs));
  const setup = sorted(samples.map((sample) => sample.clientSetupMs));
  return {
    ttfbMs: samples.map((sample) => round1(sample.ttfbMs)),
    ttfbP50Ms: round1(nearestRank(ttfb, 50)),
    ttfbP90Ms: round1(nearestRank(ttfb, 90)),
    wireTtfbP50Ms: round1(nearestRank(wire, 50)),
    wireTtfbP90Ms: round1(nearestRank(wire, 90)),
    clientSetupP50Ms: round1(nearestRank(setup, 50)),
    clientSetupP90Ms: round1(nearestRank(setup, 90)),
    totalP50Ms: round1(nearestRank(sorted(samples.map((sample) => sample.totalMs)), 50)),
    audioP50Ms: round1(nearestRank(sorted(samples.map((sample) => sample.audioMs)), 50)),
  };
}

/** The reply each bundled voicemail gets: normalised, transcribed, reasoned over, as a run does. */
async function fixtureReplies(
  log: (line: string) => void,
): Promise<Array<{ voicemail: string; text: string }>> {
  const transcriber = new PocketsphinxTranscriber();
  const reasoner = new LocalReasoner();
  const records = await JsonlRecordLookup.fromFile(BUNDLED_RECORDS_FILE);
  const replies: Array<{ voicemail: string; text: string }> = [];
  for (const file of await collectInputFiles([BUNDLED_VOICEMAILS_DIR])) {
    const { wav } = normalizeForTranscription(await readFile(file.path));
    const transcript = await transcriber.transcribe(wav, { language: "en" });
    const record = await reasoner.reason(transcript, records);
    const voicemail = file.name.replace(/\.wav$/i, "");
    log(`ttfb: ${voicemail}: a reply of ${splitSentences(record.replyText).length} sentence(s)`);
    replies.push({ voicemail, text: record.replyText });
  }
  return replies;
}

/**
 * flite speaking a whole reply as one piece, as the endpoint did before it spoke sentence by
 * sentence. Told the reply first ({@link next}), it renders all of it when the endpoint asks for
 * its first sentence, and answers that with all but the last few samples; each later sentence gets
 * one of those, so no audio goes out before the whole reply is rendered, and the endpoint sends
 * exactly the whole reply's audio (at flite's 16 kHz). `started-per-call` renders in a flite process
 * started for the call (the endpoint before this change); `started-ahead` on the one the engine
 * keeps started.
 */
class WholeReply extends FliteEngine {
  #reply = "";
  #tail: Int16Array = new Int16Array(0);
  #asked = 0;

  constructor(private readonly renderIn: "started-per-call" | "started-ahead") {
    super();
  }

  /** The reply the endpoint's next request speaks. */
  next(reply: string): void {
    this.#reply = reply;
    this.#asked = 0;
  }

  override async synthesizeWav(sentence: string, voice: FliteVoice = "slt"): Promise<Uint8Array> {
    this.#asked += 1;
    if (this.#asked > 1) return wav16k(this.#tail.subarray(this.#asked - 2, this.#asked - 1));
    if (!this.#reply.startsWith(sentence)) throw new Error("not the first sentence of the reply given");
    const whole = decodeMono16(
      this.renderIn === "started-ahead"
        ? await super.synthesizeWav(this.#reply, voice)
        : await speakInNewProcess(this.#reply, voice),
    ).samples;
    const later = splitSentences(this.#reply).length - 1;
    this.#tail = whole.slice(whole.length - later);
    return wav16k(whole.subarray(0, whole.length - later));
  }
}

/** One synthesis in a flite process started for it, as the engine ran every call before. */
async function speakInNewProcess(text: string, voice: FliteVoice): Promise<Uint8Array> {
  const speaker = new FliteProcess();
  const dir = await openTempDir("flite");
  try {
    return await speaker.speak({ text, voice, dir });
  } finally {
    await removeTempDir(dir);
  }
}

function wav16k(samples: Int16Array): Uint8Array {
  return writeWav(
    { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
    encodeSamples(samples, "pcm_s16le"),
  );
}
