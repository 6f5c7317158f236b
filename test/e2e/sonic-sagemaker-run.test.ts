import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseWav } from "@voxtrail/audio";
import { ActivityRecord, JobReport, type Processor } from "@voxtrail/core";
import {
  BUNDLED_VOICEMAILS_DIR,
  collectInputFiles,
  type JobResult,
  LocalRuntime,
  type SonicEndpoint,
  type SonicEndpointFaults,
  startSonicEndpoint,
} from "@voxtrail/local";
import { SonicSageMakerSynthesizer } from "@voxtrail/providers";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIMULATED_TRANSCRIBER, SIMULATED_TRANSCRIBER_ENV } from "../support/simulated-transcriber";
import { runtimeWithSonicAt, SONIC_ENDPOINT_NAME, sonicClient } from "../support/sonic-sagemaker-runtime";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

// The shortest bundled voicemail. Transcription is simulated throughout: these runs are about
// synthesis (voxtrail-run.test.ts runs the real transcriber end to end).
const VOICEMAIL = join(BUNDLED_VOICEMAILS_DIR, "no-message.wav");

const workDir = temporaryDirectory("voxtrail-sonic-run-");

/** A separate local Sonic endpoint with faults, counting the invocations that reach it. */
async function faultyEndpoint(faults: SonicEndpointFaults) {
  let invocations = 0;
  const endpoint = await startSonicEndpoint({
    faults,
    // Small payload parts: events (and their base64) arrive split across parts.
    maxPartBytes: 97,
    onRequest: ({ path }) => {
      if (path.endsWith("/invocations-response-stream")) invocations += 1;
    },
  });
  return { endpoint, invocations: () => invocations };
}

async function lineageOf(store: string, jobId: string): Promise<Map<string, ActivityRecord>> {
  const dir = join(store, "lineage", jobId);
  const records = new Map<string, ActivityRecord>();
  for (const name of await readdir(dir)) {
    if (!name.endsWith(".json")) continue;
    records.set(
      name.replace(/\.json$/, ""),
      ActivityRecord.parse(JSON.parse(await readFile(join(dir, name), "utf8"))),
    );
  }
  return records;
}

/** Runs the bundled short voicemail through the local runtime with sonic-sagemaker on `endpoint`. */
async function runWithSonic(endpoint: SonicEndpoint, store: string): Promise<JobResult> {
  const runtime = await runtimeWithSonicAt(endpoint.url, store);
  try {
    const [result] = await runtime.run(await collectInputFiles([VOICEMAIL]), { concurrency: 1 });
    return result as JobResult;
  } finally {
    await runtime.close();
  }
}

describe("voxtrail run --synthesizer sonic-sagemaker, against an endpoint that fails mid-stream once", () => {
  let faulty: Awaited<ReturnType<typeof faultyEndpoint>>;
  let store: string;
  let run: { code: number; stdout: string; stderr: string };
  let result: JobResult;
  let lineage: Map<string, ActivityRecord>;

  beforeAll(async () => {
    faulty = await faultyEndpoint({ streamError: { afterChunk: 5 } });
    store = join(workDir(), "mid-stream");
    run = await runCli(
      [
        "run",
        VOICEMAIL,
        "--store",
        store,
        "--json",
        "--synthesizer",
        "sonic-sagemaker",
        "--sonic-endpoint",
        SONIC_ENDPOINT_NAME,
        "--voice-id",
        "slt",
      ],
      {
        ...SIMULATED_TRANSCRIBER_ENV,
        AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME: faulty.endpoint.url,
        AWS_REGION: "eu-west-1",
        AWS_ACCESS_KEY_ID: "local",
        AWS_SECRET_ACCESS_KEY: "local",
      },
    );
    result = (JSON.parse(run.stdout) as JobResult[])[0] as JobResult;
    lineage = await lineageOf(store, result.jobId);
  }, 120_000);

  afterAll(async () => {
    await faulty.endpoint.close();
  });

  it("succeeds after retrying synthesis from the start", () => {
    expect(run.code).toBe(0);
    expect(result.status).toBe("SUCCEEDED");
    expect(faulty.invocations()).toBe(2);
  });

  it("records the interrupted attempt, with no output, and the successful retry", () => {
    const first = lineage.get("synthesize-01");
    const second = lineage.get("synthesize-02");
    expect(first?.outcome).toBe("failed");
    expect(first?.error?.name).toBe("SynthesisStreamInterrupted");
    expect(first?.outputs).toEqual([]);
    expect(second?.outcome).toBe("succeeded");
    expect(second?.outputs.map((output) => output.kind)).toEqual(["reply-audio"]);
    expect(lineage.has("synthesize-03")).toBe(false);
    expect(second?.processors[0]).toMatchObject({
      provider: "sonic-sagemaker",
      endpoint: SONIC_ENDPOINT_NAME,
      boundary: { kind: "aws-account", service: "sagemaker", region: "eu-west-1" },
    });
  });

  it("records the time to first audio and the largest gap between chunks", () => {
    const timings = new Map(lineage.get("synthesize-02")?.timings.map((timing) => [timing.name, timing.ms]));
    expect(timings.get("synthesize.ttfb")).toBeGreaterThan(0);
    expect(timings.get("synthesize.maxGap")).toBeGreaterThanOrEqual(0);
    const report = JobReport.parse(result.report);
    const stage = report.stages.find((entry) => entry.stage === "Synthesize");
    expect(stage?.timings.map((timing) => timing.name)).toEqual(
      expect.arrayContaining(["synthesize.ttfb", "synthesize.maxGap"]),
    );
  });

  it("writes one complete reply: the same audio the endpoint gives when nothing fails", async () => {
    const report = JobReport.parse(result.report);
    const byKind = Object.fromEntries(report.artifacts.map((artifact) => [artifact.kind, artifact]));
    const artifactDir = join(store, "artifacts", result.jobId);
    expect((await readdir(artifactDir)).filter((name) => name.startsWith("reply.wav"))).toEqual([
      "reply.wav",
    ]);
    const replyKey = keys.artifact(result.jobId, "reply.wav");
    expect(byKind["reply-audio"]?.key).toBe(replyKey);
    const wav = await readFile(join(store, replyKey));
    const info = parseWav(wav);
    expect(info).toMatchObject({ encoding: "pcm_s16le", sampleRate: 16000, channels: 1 });

    // The same reply, synthesized again (the fault hit the first invocation only).
    const text = (await readFile(join(store, byKind["reply-text"]?.key as string), "utf8")).trim();
    const unfaulted = new SonicSageMakerSynthesizer({
      client: sonicClient(faulty.endpoint.url),
      endpointName: SONIC_ENDPOINT_NAME,
      voiceId: "slt",
      processor: lineage.get("synthesize-02")?.processors[0] as Processor,
    }).synthesize({
      text,
      language: "en",
      format: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
    });
    const chunks: Uint8Array[] = [];
    for await (const chunk of unfaulted) chunks.push(chunk);
    const expected = Buffer.concat(chunks);
    expect(info.dataBytes).toBe(expected.byteLength);
    expect(
      Buffer.from(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes)).equals(expected),
    ).toBe(true);
    expect(info.durationMs).toBeCloseTo((expected.byteLength / 2 / 16000) * 1000, 6);
  }, 60_000);
});

describe("the local runtime with sonic-sagemaker, against an endpoint that answers an error first", () => {
  it("fails Synthesize without retry when the model rejects the input (422)", async () => {
    const faulty = await faultyEndpoint({ modelError: { originalStatus: 422 } });
    const store = join(workDir(), "rejected");
    try {
      const result = await runWithSonic(faulty.endpoint, store);
      expect(result.status).toBe("FAILED");
      expect(result.error?.error).toBe("SynthesizeFailed");
      expect(result.error?.cause).toContain("SynthesisRejected");
      expect(faulty.invocations()).toBe(1);
      const lineage = await lineageOf(store, result.jobId);
      expect(lineage.get("synthesize-01")?.error?.name).toBe("SynthesisRejected");
      expect(lineage.has("synthesize-02")).toBe(false);
      expect(JobReport.parse(result.report).failure?.stage).toBe("Synthesize");
    } finally {
      await faulty.endpoint.close();
    }
  }, 120_000);

  it("retries when the endpoint has no capacity (429), and succeeds", async () => {
    const faulty = await faultyEndpoint({ modelError: { originalStatus: 429 } });
    const store = join(workDir(), "throttled");
    try {
      const result = await runWithSonic(faulty.endpoint, store);
      expect(result.status).toBe("SUCCEEDED");
      expect(faulty.invocations()).toBe(2);
      const lineage = await lineageOf(store, result.jobId);
      expect(lineage.get("synthesize-01")?.error?.name).toBe("SynthesisThrottled");
      expect(lineage.get("synthesize-02")?.outcome).toBe("succeeded");
    } finally {
      await faulty.endpoint.close();
    }
  }, 120_000);
});

describe("the local policy and a third-party synthesizer", () => {
  it("refuses cartesia-api with BoundaryViolation before anything is sent", async () => {
    const store = join(workDir(), "third-party");
    const runtime = await LocalRuntime.start({
      storeDir: store,
      providers: {
        ...SIMULATED_TRANSCRIBER,
        synthesizer: "cartesia-api",
        voiceId: "slt",
        cartesiaApiKey: async () => "never-used",
      },
    });
    try {
      const [result] = await runtime.run(await collectInputFiles([VOICEMAIL]), { concurrency: 1 });
      expect(result?.status).toBe("FAILED");
      expect(result?.error?.cause).toContain("BoundaryViolation");
      const lineage = await lineageOf(store, result?.jobId as string);
      const attempt = lineage.get("synthesize-01");
      expect(attempt?.error?.name).toBe("BoundaryViolation");
      expect(attempt?.policy?.outcome).toBe("refused");
      expect(attempt?.outputs).toEqual([]);
    } finally {
      await runtime.close();
    }
  }, 120_000);

  it.each([
    [["--synthesizer", "sonic-sagemaker"], "--sonic-endpoint NAME"],
    [
      ["--synthesizer", "sonic-sagemaker", "--sonic-endpoint", SONIC_ENDPOINT_NAME],
      "needs a Sonic voice id (--voice-id ID)",
    ],
    [["--synthesizer", "sonic"], "synthesizer must be one of local, sonic-sagemaker, cartesia-api"],
  ])(
    "rejects %j as a usage error: an unknown provider, or sonic-sagemaker without its endpoint or voice",
    async (choice, message) => {
      const run = await runCli(["run", VOICEMAIL, "--store", join(workDir(), "unused"), ...choice]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    },
  );
});

describe("voxtrail run --reply-format telephony", () => {
  it("writes the reply as Amazon Connect's prompt format: WAV, mu-law, 8 kHz, mono", async () => {
    const store = join(workDir(), "telephony");
    const run = await runCli(
      ["run", VOICEMAIL, "--store", store, "--json", "--reply-format", "telephony"],
      SIMULATED_TRANSCRIBER_ENV,
    );
    expect(run.code).toBe(0);
    const [result] = JSON.parse(run.stdout) as JobResult[];
    const wav = await readFile(join(store, keys.artifact(result?.jobId as string, "reply.wav")));
    expect(wav.toString("latin1", 0, 4)).toBe("RIFF");
    expect(wav.toString("latin1", 8, 12)).toBe("WAVE");
    expect(wav.toString("latin1", 12, 16)).toBe("fmt ");
    expect(wav.readUInt16LE(20)).toBe(7); // WAVE_FORMAT_MULAW
    expect(wav.readUInt16LE(22)).toBe(1); // channels
    expect(wav.readUInt32LE(24)).toBe(8000); // sample rate
    expect(wav.readUInt32LE(28)).toBe(8000); // bytes per second: one byte per sample
    expect(wav.readUInt16LE(34)).toBe(8); // bits per sample
    const info = parseWav(wav);
    expect(info).toMatchObject({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 });
    expect(info.durationMs).toBeGreaterThan(500);
  }, 120_000);
});
