/**
 * Overhead: the same voicemails through the pipeline (LocalRuntime: S3-style upload, the Object
 * Created event and rule match, the ASL on aws-local-stepfunctions, the Lambda handlers with their
 * lineage records, hashes and report) and through the same engines called in a plain loop
 * (normalise, pocketsphinx, the local reasoner, the Sonic client against a local endpoint, the same
 * outputs written to files), at the same concurrency. After one untimed warm-up, rounds alternate
 * which side goes first; the median of each side is compared. Start-up (the runtime's state
 * machine, the endpoint) is timed apart, not in the per-item figure.
 *
 * On a shared machine the engines' own times (pocketsphinx above all) swing by seconds between
 * passes, which swamps a wall-time difference. So each voicemail's time is also split, on both
 * sides, into engine time (transcription, reasoning, the synthesis stream, as each side measured
 * them) and the rest; the pipeline's per-item overhead is the difference of the medians of "the
 * rest", which the engines' swings do not reach.
 *
 * With `transcriber: "simulated"` both sides use the repository's simulated transcriber (a fixed
 * transcript, no recogniser: see `SimulatedTranscriber`) instead of pocketsphinx, so 20 or more
 * voicemails take minutes rather than an hour here; the engines' time is set aside anyway, and
 * the result names the transcriber. More voicemails than the 5 bundled ones are copies of them
 * under distinct names (`07-billing.wav`), so every one is its own job. `overheadPerVoicemailMs`
 * is the median over passes of each pipeline pass's median non-engine time per voicemail, less
 * the same for the plain loop's passes (the passes alternate which side goes first).
 *
 * A third side runs the pipeline on a directory store that does not flush its writes to disk
 * (`durable: false`, as a load run's scratch store), in the same rounds (the three sides take
 * turns going first): what the pipeline adds with the flushes set aside, and so what the flushes
 * themselves cost a voicemail (`flushesPerVoicemailMs`). It measures; the pipeline's figure is the
 * durable store's, the default everywhere else.
 *
 *   npm run bench -- --only overhead --voicemails 20 --rounds 3 --transcriber simulated
 */
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeForTranscription, wavHeader } from "@voxtrail/audio";
import { type JobReport, mapLimit, type Synthesizer, type Transcriber } from "@voxtrail/core";
import {
  BUNDLED_RECORDS_FILE,
  DEFAULT_REPLY_FORMAT,
  type InputFile,
  LocalRuntime,
  localSonicSynthesizer,
  startSonicEndpoint,
} from "@voxtrail/local";
import {
  JsonlRecordLookup,
  LocalReasoner,
  PocketsphinxTranscriber,
  SimulatedTranscriber,
} from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import { median, round1 } from "./stats";
import { voicemailCopies } from "./voicemail-copies";

/** The transcribers the comparison can run: pocketsphinx, or the simulated one (no recogniser). */
export type OverheadTranscriber = "pocketsphinx" | "simulated";

/** Options of {@link benchOverhead}. */
export interface OverheadOptions {
  /** How many voicemails to process per pass: the bundled ones, then copies of them. */
  voicemails: number;
  /** Both sides' transcriber; `pocketsphinx` (the real engine) by default. */
  transcriber?: OverheadTranscriber;
  concurrency: number;
  /** Passes per side. */
  rounds: number;
  log: (line: string) => void;
}

/** What {@link benchOverhead} measured. */
export interface OverheadResult {
  /** What transcribed on both sides: the processor's model, `simulated` in it when simulated. */
  transcriber: string;
  voicemails: string[];
  concurrency: number;
  rounds: number;
  /** Wall time of each pass, ms. */
  pipelineMs: number[];
  directMs: number[];
  pipelineMedianMs: number;
  directMedianMs: number;
  /** Pipeline median over direct median. */
  ratio: number;
  /** (Pipeline median - direct median) / voicemails: wall time the pipeline adds per voicemail. */
  overheadPerItemMs: number;
  /** Median LocalRuntime.start (endpoint, dependencies, state machine), not in the figures above. */
  pipelineStartMs: number;
  /** Median per voicemail, pipeline: `job.endToEnd` minus the engines' times, ms. */
  pipelineNonEngineMsPerItem: number;
  /** Median per voicemail, plain loop: its wall time minus the engines' times, ms. */
  directNonEngineMsPerItem: number;
  /** The difference of the two: what the pipeline adds per voicemail, engines' swings aside. */
  nonEngineOverheadPerItemMs: number;
  /** Each pass's median non-engine time per voicemail, pipeline and plain loop, in pass order. */
  pipelinePassNonEngineMs: number[];
  directPassNonEngineMs: number[];
  /**
   * The figure: median of the pipeline passes' medians less median of the plain loop's,
   * ms per voicemail, engines' time set aside.
   */
  overheadPerVoicemailMs: number;
  /** Each pass's median non-engine time per voicemail, pipeline on a store that does not flush. */
  unflushedPassNonEngineMs: number[];
  /** As `overheadPerVoicemailMs`, the pipeline's store not flushing its writes (`durable: false`). */
  overheadWithoutFlushesPerVoicemailMs: number;
  /** Median of the pipeline passes' medians less that of the unflushed ones: the flushes' cost, ms. */
  flushesPerVoicemailMs: number;
  /** Every pipeline job succeeded (else the comparison is void). */
  allSucceeded: boolean;
}

/** The sides of a round: the pipeline, the pipeline on a store that does not flush, the plain loop. */
const SIDES = ["pipeline", "unflushed", "direct"] as const;

/** One voicemail's wall time and the part of it its engines took, ms. */
interface ItemTime {
  wallMs: number;
  engineMs: number;
}

/** Runs the overhead comparison; see the file's comment. */
export async function benchOverhead(options: OverheadOptions): Promise<OverheadResult> {
  const transcriber = options.transcriber ?? "pocketsphinx";
  const scratch = await mkdtemp(join(tmpdir(), "voxtrail-bench-overhead-"));
  const files = await voicemailCopies(options.voicemails, join(scratch, "voicemails"));
  const direct = await DirectLoop.start(transcriber);
  const pipelineMs: number[] = [];
  const directMs: number[] = [];
  const startMs: number[] = [];
  const pipelineItems: ItemTime[] = [];
  const pipelinePasses: number[] = [];
  const unflushedPasses: number[] = [];
  const directPasses: number[] = [];
  let allSucceeded = true;
  try {
    // Untimed: the first pocketsphinx and flite runs load their models from a cold disk cache.
    await direct.run(files.slice(0, 1), join(scratch, "warm-up"), 1);
    direct.items.length = 0;
    for (let round = 0; round < options.rounds; round++) {
      const first = round % SIDES.length;
      for (const side of [...SIDES.slice(first), ...SIDES.slice(0, first)]) {
        const dir = join(scratch, `${side}-${round}`);
        let wallMs: number;
        if (side === "direct") {
          const started = performance.now();
          const done = direct.items.length;
          await direct.run(files, dir, options.concurrency);
          wallMs = performance.now() - started;
          directMs.push(wallMs);
          directPasses.push(median(direct.items.slice(done).map(nonEngine)));
        } else {
          const pass = await pipelinePass(files, dir, transcriber, options.concurrency, side === "pipeline");
          wallMs = pass.wallMs;
          allSucceeded &&= pass.allSucceeded;
          if (side === "pipeline") {
            startMs.push(pass.startMs);
            pipelineMs.push(pass.wallMs);
            pipelineItems.push(...pass.items);
            pipelinePasses.push(median(pass.items.map(nonEngine)));
          } else {
            unflushedPasses.push(median(pass.items.map(nonEngine)));
          }
        }
        options.log(`overhead round ${round + 1}: ${side} ${(wallMs / 1000).toFixed(2)} s`);
      }
    }
  } finally {
    await direct.close();
    await rm(scratch, { recursive: true, force: true });
  }
  const pipelineNonEngine = median(pipelineItems.map(nonEngine));
  const directNonEngine = median(direct.items.map(nonEngine));
  const pipelineMedianMs = median(pipelineMs);
  const directMedianMs = median(directMs);
  return {
    transcriber: direct.transcriberModel,
    voicemails: files.map((file) => file.name),
    concurrency: options.concurrency,
    rounds: options.rounds,
    pipelineMs: pipelineMs.map(round1),
    directMs: directMs.map(round1),
    pipelineMedianMs: round1(pipelineMedianMs),
    directMedianMs: round1(directMedianMs),
    ratio: Number((pipelineMedianMs / directMedianMs).toFixed(3)),
    overheadPerItemMs: round1((pipelineMedianMs - directMedianMs) / files.length),
    pipelineStartMs: round1(median(startMs)),
    pipelineNonEngineMsPerItem: round1(pipelineNonEngine),
    directNonEngineMsPerItem: round1(directNonEngine),
    nonEngineOverheadPerItemMs: round1(pipelineNonEngine - directNonEngine),
    pipelinePassNonEngineMs: pipelinePasses.map(round1),
    directPassNonEngineMs: directPasses.map(round1),
    overheadPerVoicemailMs: round1(median(pipelinePasses) - median(directPasses)),
    unflushedPassNonEngineMs: unflushedPasses.map(round1),
    overheadWithoutFlushesPerVoicemailMs: round1(median(unflushedPasses) - median(directPasses)),
    flushesPerVoicemailMs: round1(median(pipelinePasses) - median(unflushedPasses)),
    allSucceeded,
  };
}

/** One pass of the pipeline over `files`: its start, its wall time and each job's times. */
async function pipelinePass(
  files: InputFile[],
  dir: string,
  transcriber: OverheadTranscriber,
  concurrency: number,
  durable: boolean,
): Promise<{ startMs: number; wallMs: number; items: ItemTime[]; allSucceeded: boolean }> {
  let started = performance.now();
  const runtime = await LocalRuntime.start({
    store: new DirectoryStore({ root: dir, durable }),
    ...(transcriber === "simulated"
      ? { providers: { transcriber: "simulated", reasoner: "local", synthesizer: "local" } }
      : {}),
  });
  const startMs = performance.now() - started;
  try {
    started = performance.now();
    const results = await runtime.run(files, { concurrency });
    return {
      startMs,
      wallMs: performance.now() - started,
      items: results.flatMap(({ report }) => (report ? [pipelineItemTime(report)] : [])),
      allSucceeded: results.every((result) => result.status === "SUCCEEDED"),
    };
  } finally {
    await runtime.close();
  }
}

/** A voicemail's time outside its engines. */
function nonEngine(item: ItemTime): number {
  return item.wallMs - item.engineMs;
}

/** The engines the pipeline uses, called one after another, writing the same outputs to files. */
class DirectLoop {
  /** Every voicemail done so far. */
  readonly items: ItemTime[] = [];

  private constructor(
    private readonly transcriber: Transcriber,
    private readonly reasoner: LocalReasoner,
    private readonly records: JsonlRecordLookup,
    private readonly synthesizer: Synthesizer,
    readonly close: () => Promise<void>,
  ) {}

  /** What transcribes: the processor's model, which says `simulated` for the simulated one. */
  get transcriberModel(): string {
    return this.transcriber.processor.model;
  }

  static async start(transcriber: OverheadTranscriber): Promise<DirectLoop> {
    const endpoint = await startSonicEndpoint();
    const synthesizer = localSonicSynthesizer(endpoint);
    return new DirectLoop(
      transcriber === "simulated" ? new SimulatedTranscriber() : new PocketsphinxTranscriber(),
      new LocalReasoner(),
      await JsonlRecordLookup.fromFile(BUNDLED_RECORDS_FILE),
      synthesizer,
      () => endpoint.close(),
    );
  }

  async run(files: InputFile[], dir: string, concurrency: number): Promise<void> {
    await mapLimit(files, concurrency, (file) =>
      this.#one(file, join(dir, file.name.replace(/\.wav$/i, ""))),
    );
  }

  async #one(file: InputFile, dir: string): Promise<void> {
    const started = performance.now();
    await mkdir(dir, { recursive: true });
    const normalized = normalizeForTranscription(await readFile(file.path));
    await writeFile(join(dir, "normalized.wav"), normalized.wav);
    let at = performance.now();
    const transcript = await this.transcriber.transcribe(normalized.wav, { language: "en" });
    let engineMs = performance.now() - at;
    await writeFile(join(dir, "transcript.json"), JSON.stringify(transcript));
    at = performance.now();
    const record = await this.reasoner.reason(transcript, this.records);
    engineMs += performance.now() - at;
    await writeFile(join(dir, "record.json"), JSON.stringify(record));
    await writeFile(join(dir, "reply.txt"), `${record.replyText}\n`);
    const stream = this.synthesizer.synthesize({
      text: record.replyText,
      language: "en",
      format: DEFAULT_REPLY_FORMAT,
    });
    const wav = await open(join(dir, "reply.wav"), "w");
    try {
      let dataBytes = 0;
      await wav.write(new Uint8Array(44), 0, 44, 0);
      for await (const chunk of stream) {
        await wav.write(chunk, 0, chunk.byteLength, 44 + dataBytes);
        dataBytes += chunk.byteLength;
      }
      await wav.write(wavHeader(DEFAULT_REPLY_FORMAT, dataBytes), 0, 44, 0);
    } finally {
      await wav.close();
    }
    // The stream's own figure, as the pipeline's synthesize.total: request sent to stream done.
    engineMs += stream.timings().find((timing) => timing.name === "synthesize.total")?.ms ?? 0;
    this.items.push({ wallMs: performance.now() - started, engineMs });
  }
}

/** A pipeline job's time: S3 event to artifacts durable, and its engines' share of it. */
function pipelineItemTime(report: JobReport): ItemTime {
  const ms = (name: string) =>
    report.stages.flatMap((stage) => stage.timings).find((timing) => timing.name === name)?.ms ?? 0;
  return {
    wallMs: report.timings.find((timing) => timing.name === "job.endToEnd")?.ms ?? 0,
    engineMs: ms("transcribe.engine") + ms("reason.engine") + ms("synthesize.total"),
  };
}
