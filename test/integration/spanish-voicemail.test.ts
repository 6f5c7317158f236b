import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TranscribeClient } from "@aws-sdk/client-transcribe";
import { decodeMono16, encodeMuLaw, resample, writeWav } from "@voxtrail/audio";
import { ActivityRecord, JobReport, Transcript, VoicemailRecord } from "@voxtrail/core";
import {
  ALL_LOCAL,
  type JobResult,
  LocalRuntime,
  localSonicSynthesizer,
  type StartedSonicEndpoint,
  SuppliedTranscripts,
  spanishSpeech,
  startSonicEndpoint,
  startTranscribeEndpoint,
  type TranscribeEndpoint,
} from "@voxtrail/local";
import { AmazonTranscribe } from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** What the caller says, spoken by espeak-ng; the Transcribe stand-in is given it as its transcript. */
const SPOKEN =
  "Hola, soy María López. Llamo por el pedido número cuatro dos siete uno. Llegó dañado. " +
  "Por favor, devuélvanme la llamada.";
const LANGUAGES = ["en-US", "es-US"];

let workDir: string;
const endpoints: Array<{ close(): Promise<void> }> = [];

/** One Spanish voicemail's run: its result, where its store is, and what the Sonic stand-in spoke in Spanish. */
interface SpanishRun {
  result: JobResult;
  storeDir: string;
  spokenInSpanish: string[];
  transcribe: TranscribeEndpoint;
}
const runs: Record<string, SpanishRun> = {};

/**
 * Runs a Spanish voicemail (espeak-ng speaking {@link SPOKEN}, as 8 kHz mu-law, padded with silence
 * to `seconds`) uploaded as `name`, through a stage taking en-US and es-US, with Transcribe as a job
 * on the stand-in (es-US taken; its transcript the test's; `identify` its language identifier).
 */
async function runSpanish(
  dir: string,
  name: string,
  options: { seconds?: number; identify?: () => string } = {},
): Promise<SpanishRun> {
  const inputs = join(workDir, dir, "inputs");
  await mkdir(inputs, { recursive: true });
  const speech = decodeMono16(await spanishSpeech().synthesizeWav(SPOKEN));
  const samples = resample(speech.samples, speech.sampleRate, 8000);
  const padded = new Int16Array(Math.max(samples.length, (options.seconds ?? 0) * 8000));
  padded.set(samples);
  const wavPath = join(inputs, "llamada.wav");
  await writeFile(
    wavPath,
    writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(padded)),
  );
  const storeDir = join(workDir, dir, "store");
  const store = new DirectoryStore({ root: storeDir });
  let runtime: LocalRuntime | undefined;
  // The Transcribe stand-in takes es-US for this test of the wiring; its transcript is the test's.
  const supplied = new SuppliedTranscripts({ "es-US": SPOKEN });
  const transcribe = await startTranscribeEndpoint({
    store,
    transcriber: supplied,
    languageCodes: LANGUAGES,
    ...(options.identify ? { identifyLanguage: options.identify } : {}),
    onJobStateChange: (event) => runtime?.deliverTranscriptionEvent(event),
  });
  endpoints.push(transcribe);
  const client = new TranscribeClient({
    endpoint: transcribe.url,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  const transcriptionService = await AmazonTranscribe.create({
    client,
    describedAs: {
      model: `${supplied.processor.model}, behind Amazon Transcribe's batch API (local stand-in); not Amazon Transcribe`,
      version: supplied.processor.version,
      endpoint: transcribe.url,
    },
  });
  const espeak = spanishSpeech();
  const spokenInSpanish: string[] = [];
  const sonic: StartedSonicEndpoint = await startSonicEndpoint({
    spanishEngine: {
      synthesizeWav: (text: string) => {
        spokenInSpanish.push(text);
        return espeak.synthesizeWav(text);
      },
    },
  });
  endpoints.push(sonic);
  runtime = await LocalRuntime.start({
    storeDir,
    providers: { ...ALL_LOCAL, transcriber: "amazon-transcribe" },
    providerClients: { transcribe: client },
    transcriptionService,
    languages: LANGUAGES,
    retryIntervalMs: 10,
    // The local synthesizer, on a Sonic stand-in whose Spanish engine the test watches.
    engines: { synthesizer: localSonicSynthesizer(sonic) },
  });
  try {
    const [result] = (await runtime.run([{ path: wavPath, name }], { concurrency: 1 })) as [JobResult];
    await transcribe.settled();
    return { result, storeDir, spokenInSpanish, transcribe };
  } finally {
    await runtime.close();
  }
}

const artifact = (run: SpanishRun, file: string) =>
  readFile(join(run.storeDir, keys.artifact(run.result.jobId, file as never)));
const reportOf = async (run: SpanishRun) =>
  JobReport.parse(JSON.parse(await readFile(join(run.storeDir, keys.report(run.result.jobId)), "utf8")));
const records = async (run: SpanishRun, stage: string) => {
  const dir = join(run.storeDir, keys.lineagePrefix(run.result.jobId));
  const parsed = await Promise.all(
    (await readdir(dir))
      .filter((file) => file.endsWith(".json"))
      .map(async (file) => ActivityRecord.parse(JSON.parse(await readFile(join(dir, file), "utf8")))),
  );
  return parsed.filter((record) => record.stage === stage);
};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-spanish-voicemail-"));
  // Uploaded under a language folder: incoming/voicemail/es-US/llamada.wav.
  runs.folder = await runSpanish("folder", "es-US/llamada.wav");
  // No folder, 31 s long: Transcribe identifies the language among the stage's.
  runs.identified = await runSpanish("identified", "llamada.wav", { seconds: 31, identify: () => "es-US" });
  // No folder, a few seconds: too short to identify.
  runs.short = await runSpanish("short", "llamada.wav", { identify: () => "es-US" });
}, 300_000);

afterAll(async () => {
  for (const endpoint of endpoints) await endpoint.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("a Spanish voicemail, through the Transcribe stand-in taking es-US", () => {
  it("succeeds, its transcript es-US and labelled as the test's, not a recogniser's", async () => {
    const run = runs.folder as SpanishRun;
    expect(run.result.status, JSON.stringify(run.result.error)).toBe("SUCCEEDED");
    const transcript = Transcript.parse(JSON.parse((await artifact(run, "transcript.json")).toString()));
    expect(transcript.language).toBe("es-US");
    const [transcribe] = await records(run, "Transcribe");
    expect(transcribe?.processors[0]?.model).toMatch(
      /^a transcript supplied by the test; no recogniser heard/,
    );
  });

  it("gets a Spanish reply from the local reasoner, about the caller's order", async () => {
    const run = runs.folder as SpanishRun;
    const record = VoicemailRecord.parse(JSON.parse((await artifact(run, "record.json")).toString()));
    expect(record).toMatchObject({
      intent: "order-problem",
      entities: { orderNumber: "4271" },
      match: { outcome: "found", matchedOn: "orderNumber" },
    });
    expect((await artifact(run, "reply.txt")).toString()).toMatch(
      /^Hola Maria, le habla Acme support sobre el pedido 4271\. Lamentamos que haya llegado dañado/,
    );
  });

  it("has the Sonic stand-in speak the reply with language es (espeak-ng), and lineage says so", async () => {
    const run = runs.folder as SpanishRun;
    expect(run.spokenInSpanish[0]).toBe("Hola Maria, le habla Acme support sobre el pedido 4271.");
    const [synthesize] = await records(run, "Synthesize");
    expect(synthesize?.processors[0]?.model).toBe(
      "espeak-ng (es-419) behind Sonic's SageMaker wire format; not Sonic",
    );
    expect((await artifact(run, "reply.wav")).byteLength).toBeGreaterThan(16_000);
  });

  it("names the language in the job report and in each stage's lineage record", async () => {
    const run = runs.folder as SpanishRun;
    expect((await reportOf(run)).language).toBe("es-US");
    for (const stage of ["Transcribe", "Reason", "Synthesize"]) {
      expect((await records(run, stage))[0]?.language, stage).toBe("es-US");
    }
  });
});

describe("a Spanish voicemail whose language nothing names", () => {
  it("of 31 s: Transcribe identifies it among the stage's languages, and the reply is Spanish", async () => {
    const run = runs.identified as SpanishRun;
    expect(run.result.status, JSON.stringify(run.result.error)).toBe("SUCCEEDED");
    expect((await reportOf(run)).language).toBe("es-US");
    expect((await artifact(run, "reply.txt")).toString()).toMatch(/^Hola Maria, le habla Acme support/);
    expect(run.spokenInSpanish.length).toBeGreaterThan(0);
  });

  it("shorter than 30 s: fails CallLanguageUnknown before any job starts, and is not answered in English", async () => {
    const run = runs.short as SpanishRun;
    expect(run.result.status).toBe("FAILED");
    const report = await reportOf(run);
    expect(report.failure).toMatchObject({ stage: "Transcribe", error: { name: "CallLanguageUnknown" } });
    expect(report.failure?.error.message).toMatch(/shorter than the 30 s of speech/);
    expect(run.transcribe.jobNames()).toEqual([]);
    expect(run.spokenInSpanish).toEqual([]);
  });
});
