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
 */
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeForTranscription, wavHeader } from "@voxtrail/audio";
import { type JobReport, mapLimit, type Synthesizer } from "@voxtrail/core";
import {
  BUNDLED_RECORDS_FILE,
  BUNDLED_VOICEMAILS_DIR,
  collectInputFiles,
  DEFAULT_REPLY_FORMAT,
  type InputFile,
  LocalRuntime,
  localSonicSynthesizer,
  startSonicEndpoint,
} from "@voxtrail/local";
import { JsonlRecordLookup, LocalReasoner, PocketsphinxTranscriber } from "@voxtrail/providers";
import { median, round1 } from "./stats";

/** Options of {@link benchOverhead}. */
export interface OverheadOptions {
  /** How many bundled voicemails to process per pass (at most 5). */
  voicemails: number;
  concurrency: number;
  /** Passes per side. */
  rounds: number;
  log: (line: string) => void;
}

/** What {@link benchOverhead} measured. */
export interface OverheadResult {
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
  /** Every pipeline job succeeded (else the comparison is void). */
  allSucceeded: boolean;
}

/** One voicemail's wall time and the part of it its engines took, ms. */
interface ItemTime {
  wallMs: number;
  engineMs: number;
}

/** Runs the overhead comparison; see the file's comment. */
export async function benchOverhead(options: OverheadOptions): Promise<OverheadResult> {
  const files = (await collectInputFiles([BUNDLED_VOICEMAILS_DIR])).slice(0, options.voicemails);
  const scratch = await mkdtemp(join(tmpdir(), "voxtrail-bench-overhead-"));
  const direct = await DirectLoop.start();
  const pipelineMs: number[] = [];
  const directMs: number[] = [];
  const startMs: number[] = [];
  const pipelineItems: ItemTime[] = [];
  let allSucceeded = true;
  try {
    // Untimed: the first pocketsphinx and flite runs load their models from a cold disk cache.
    await direct.run(files.slice(0, 1), join(scratch, "warm-up"), 1);
    direct.items.length = 0;
    for (let round = 0; round < options.rounds; round++) {
      const sides = round % 2 === 0 ? (["pipeline", "direct"] as const) : (["direct", "pipeline"] as const);
      for (const side of sides) {
        const dir = join(scratch, `${side}-${round}`);
        if (side === "direct") {
          const started = performance.now();
          await direct.run(files, dir, options.concurrency);
          directMs.push(performance.now() - started);
        } else {
          let started = performance.now();
          const runtime = await LocalRuntime.start({ storeDir: dir });
          startMs.push(performance.now() - started);
          try {
            started = performance.now();
            const results = await runtime.run(files, { concurrency: options.concurrency });
            pipelineMs.push(performance.now() - started);
            allSucceeded &&= results.every((result) => result.status === "SUCCEEDED");
            for (const { report } of results) if (report) pipelineItems.push(pipelineItemTime(report));
          } finally {
            await runtime.close();
          }
        }
        const last = side === "direct" ? directMs.at(-1) : pipelineMs.at(-1);
        options.log(`overhead round ${round + 1}: ${side} ${((last ?? 0) / 1000).toFixed(2)} s`);
      }
    }
  } finally {
    await direct.close();
    await rm(scratch, { recursive: true, force: true });
  }
  const pipelineNonEngine = median(pipelineItems.map((item) => item.wallMs - item.engineMs));
  const directNonEngine = median(direct.items.map((item) => item.wallMs - item.engineMs));
  const pipelineMedianMs = median(pipelineMs);
  const directMedianMs = median(directMs);
  return {
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
    allSucceeded,
  };
}

/** The engines the pipeline uses, called one after another, writing the same outputs to files. */
class DirectLoop {
  /** Every voicemail done so far. */
  readonly items: ItemTime[] = [];

  private constructor(
    private readonly transcriber: PocketsphinxTranscriber,
    private readonly reasoner: LocalReasoner,
    private readonly records: JsonlRecordLookup,
    private readonly synthesizer: Synthesizer,
    readonly close: () => Promise<void>,
  ) {}

  static async start(): Promise<DirectLoop> {
    const endpoint = await startSonicEndpoint();
    const synthesizer = localSonicSynthesizer(endpoint);
    return new DirectLoop(
      new PocketsphinxTranscriber(),
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
