import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
let endpoint: TranscribeEndpoint;
let sonic: StartedSonicEndpoint;
let store: DirectoryStore;
let result: JobResult;
/** The sentences the Sonic stand-in spoke in Spanish (espeak-ng), in order. */
const spokenInSpanish: string[] = [];

const artifact = async (file: string) =>
  readFile(join(workDir, "store", keys.artifact(result.jobId, file as never)));
const records = async (stage: string) => {
  const dir = join(workDir, "store", keys.lineagePrefix(result.jobId));
  const { readdir } = await import("node:fs/promises");
  const parsed = await Promise.all(
    (await readdir(dir))
      .filter((file) => file.endsWith(".json"))
      .map(async (file) => ActivityRecord.parse(JSON.parse(await readFile(join(dir, file), "utf8")))),
  );
  return parsed.filter((record) => record.stage === stage);
};

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-spanish-voicemail-"));
  const inputs = join(workDir, "inputs");
  await mkdir(inputs);
  // A Spanish voicemail as a phone line delivers it: 8 kHz mu-law.
  const speech = decodeMono16(await spanishSpeech().synthesizeWav(SPOKEN));
  const wavPath = join(inputs, "llamada.wav");
  await writeFile(
    wavPath,
    writeWav(
      { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
      encodeMuLaw(resample(speech.samples, speech.sampleRate, 8000)),
    ),
  );
  store = new DirectoryStore({ root: join(workDir, "store") });
  let runtime: LocalRuntime | undefined;
  // The Transcribe stand-in takes es-US for this test of the wiring; its transcript is the test's.
  const supplied = new SuppliedTranscripts({ "es-US": SPOKEN });
  endpoint = await startTranscribeEndpoint({
    store,
    transcriber: supplied,
    languageCodes: LANGUAGES,
    onJobStateChange: (event) => runtime?.deliverTranscriptionEvent(event),
  });
  const client = new TranscribeClient({
    endpoint: endpoint.url,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  const transcriptionService = await AmazonTranscribe.create({
    client,
    describedAs: {
      model: `${supplied.processor.model}, behind Amazon Transcribe's batch API (local stand-in); not Amazon Transcribe`,
      version: supplied.processor.version,
      endpoint: endpoint.url,
    },
  });
  const espeak = spanishSpeech();
  sonic = await startSonicEndpoint({
    spanishEngine: {
      synthesizeWav: (text: string) => {
        spokenInSpanish.push(text);
        return espeak.synthesizeWav(text);
      },
    },
  });
  runtime = await LocalRuntime.start({
    storeDir: join(workDir, "store"),
    providers: { ...ALL_LOCAL, transcriber: "amazon-transcribe" },
    providerClients: { transcribe: client },
    transcriptionService,
    languages: LANGUAGES,
    retryIntervalMs: 10,
    // The local synthesizer, on a Sonic stand-in whose Spanish engine the test watches.
    engines: { synthesizer: localSonicSynthesizer(sonic) },
  });
  try {
    // Uploaded under a language folder: incoming/voicemail/es-US/llamada.wav.
    [result] = (await runtime.run([{ path: wavPath, name: "es-US/llamada.wav" }], { concurrency: 1 })) as [
      JobResult,
    ];
    await endpoint.settled();
  } finally {
    await runtime.close();
  }
}, 300_000);

afterAll(async () => {
  await endpoint?.close();
  await sonic?.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("a Spanish voicemail, through the Transcribe stand-in taking es-US", () => {
  it("succeeds, its transcript es-US and labelled as the test's, not a recogniser's", async () => {
    expect(result.status, JSON.stringify(result.error)).toBe("SUCCEEDED");
    const transcript = Transcript.parse(JSON.parse((await artifact("transcript.json")).toString()));
    expect(transcript.language).toBe("es-US");
    const [transcribe] = await records("Transcribe");
    expect(transcribe?.processors[0]?.model).toMatch(
      /^a transcript supplied by the test; no recogniser heard/,
    );
  });

  it("gets a Spanish reply from the local reasoner, about the caller's order", async () => {
    const record = VoicemailRecord.parse(JSON.parse((await artifact("record.json")).toString()));
    expect(record).toMatchObject({
      intent: "order-problem",
      entities: { orderNumber: "4271" },
      match: { outcome: "found", matchedOn: "orderNumber" },
    });
    expect((await artifact("reply.txt")).toString()).toMatch(
      /^Hola Maria, le habla Acme support sobre el pedido 4271\. Lamentamos que haya llegado dañado/,
    );
  });

  it("has the Sonic stand-in speak the reply with language es (espeak-ng), and lineage says so", async () => {
    expect(spokenInSpanish[0]).toBe("Hola Maria, le habla Acme support sobre el pedido 4271.");
    const [synthesize] = await records("Synthesize");
    expect(synthesize?.processors[0]?.model).toBe(
      "espeak-ng (es-419) behind Sonic's SageMaker wire format; not Sonic",
    );
    expect((await artifact("reply.wav")).byteLength).toBeGreaterThan(16_000);
  });

  it("names the language in the job report", async () => {
    const report = JobReport.parse(
      JSON.parse(await readFile(join(workDir, "store", keys.report(result.jobId)), "utf8")),
    );
    expect(report.language).toBe("es-US");
  });
});
