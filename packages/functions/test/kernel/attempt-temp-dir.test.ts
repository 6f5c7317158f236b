import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import {
  ActivityRecord,
  LOCAL_BOUNDARY,
  type Processor,
  readJson,
  type Synthesizer,
  TranscriptionFailed,
} from "@voxtrail/core";
import { PocketsphinxTranscriber } from "@voxtrail/providers";
import { keys } from "@voxtrail/workflow";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineStage, type KernelDependencies } from "../../src/kernel/stage-definition";
import { openTempDir, removeTempDir, stageHandler, tempRoot } from "../../src/kernel/stage-handler";
import type { JobState, ReasonInput, SynthesizeInput } from "../../src/state";
import { createStageHandlers } from "../../src/workflow-handlers";
import { context, testDependencies } from "../stage-dependencies";

/** What a probe attempt does once it has written a file to its temp directory. */
const ProbeInput = z.object({ jobId: z.string(), ending: z.enum(["succeed", "fail", "wait"]) });

const PROBE: Processor = { provider: "probe", model: "probe", version: "1", boundary: LOCAL_BOUNDARY };

/** Each probe attempt's temp directory, and whether it was there (with the file in it) during `run`. */
const seen: Array<{ tmpDir: string; during: string[] }> = [];

/** A recorded stage that "calls" a provider, writes a temp file, then ends as its input says. */
const probeStage = defineStage<KernelDependencies>()({
  name: "Probe",
  input: ProbeInput,
  flows: () => [],
  open: (input) => ({ jobId: input.jobId, inputs: [], carry: undefined }),
  run: async (input, { activity, signal, tmpDir }) => {
    activity.processors.push(PROBE);
    await writeFile(join(tmpDir, "caller.wav"), "caller audio");
    seen.push({ tmpDir, during: await readdir(tmpDir) });
    if (input.ending === "fail") throw new TranscriptionFailed("the probe failed");
    if (input.ending === "wait") {
      await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    }
    return "done";
  },
});

async function gone(path: string): Promise<boolean> {
  return stat(path).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === "ENOENT",
  );
}

async function recordsOf(deps: KernelDependencies, jobId: string): Promise<ActivityRecord[]> {
  const recordKeys = await deps.store.list(keys.lineagePrefix(jobId));
  return Promise.all(recordKeys.map((key) => readJson(deps.store, key, ActivityRecord)));
}

/** The entries under the process's temp root, recursively; none when it does not exist. */
async function underRoot(): Promise<string[]> {
  return readdir(tempRoot(), { recursive: true }).catch(() => []);
}

describe("an attempt's temp directory", () => {
  it("is the attempt's own, under the process's root, while run runs, and gone after success", async () => {
    const { deps } = await testDependencies();
    await expect(
      stageHandler(probeStage, deps)({ jobId: "vm-ok", ending: "succeed" }, context),
    ).resolves.toBe("done");
    const { tmpDir, during } = seen.at(-1)!;
    expect(dirname(tmpDir)).toBe(tempRoot());
    expect(tmpDir).toMatch(/\/vm-ok-Probe-[^/]+$/);
    expect(during).toEqual(["caller.wav"]);
    expect(await gone(tmpDir)).toBe(true);
    // With no other attempt open, the root goes too.
    expect(await gone(tempRoot())).toBe(true);
  });

  it("is gone after a failure, the record written", async () => {
    const { deps } = await testDependencies();
    const failure = stageHandler(probeStage, deps)({ jobId: "vm-fail", ending: "fail" }, context);
    await expect(failure).rejects.toMatchObject({ name: "TranscriptionFailed" });
    expect(await gone(seen.at(-1)!.tmpDir)).toBe(true);
    expect(await recordsOf(deps, "vm-fail")).toMatchObject([
      { outcome: "failed", error: { name: "TranscriptionFailed" } },
    ]);
  });

  it("is gone after StageTimedOut, the record written at the deadline", async () => {
    const { deps } = await testDependencies();
    const deadline = Date.now() + 1500;
    const timedOut = stageHandler(probeStage, deps)(
      { jobId: "vm-late", ending: "wait" },
      { ...(context as Context), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) },
    );
    await expect(timedOut).rejects.toMatchObject({ name: "StageTimedOut" });
    expect(await gone(seen.at(-1)!.tmpDir)).toBe(true);
    expect(await recordsOf(deps, "vm-late")).toMatchObject([
      { outcome: "failed", error: { name: "StageTimedOut" }, processors: [PROBE] },
    ]);
  });

  it("is gone after AttemptInterrupted, recorded with the processor it had called; later invocations do not begin", async () => {
    const interrupt = new AbortController();
    const { deps } = await testDependencies({ interrupt: interrupt.signal });
    const handler = stageHandler(probeStage, deps);
    const before = seen.length;
    const interrupted = handler({ jobId: "vm-cut", ending: "wait" }, context);
    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(before + 1);

    interrupt.abort();
    await expect(interrupted).rejects.toMatchObject({ name: "AttemptInterrupted" });
    expect(await gone(seen.at(-1)!.tmpDir)).toBe(true);
    const [record] = await recordsOf(deps, "vm-cut");
    expect(record).toMatchObject({
      outcome: "failed",
      error: { name: "AttemptInterrupted", message: "Probe was interrupted (SIGINT or SIGTERM)" },
      processors: [PROBE],
    });

    const later = handler({ jobId: "vm-after", ending: "succeed" }, context);
    await expect(later).rejects.toMatchObject({ name: "AttemptInterrupted" });
    expect(seen).toHaveLength(before + 1);
    expect(await recordsOf(deps, "vm-after")).toEqual([]);
    expect((await underRoot()).filter((entry) => entry.startsWith("vm-"))).toEqual([]);
  });
});

describe("the process's temp root", () => {
  it("comes and goes with the directories in it, however many are opened and removed at once", async () => {
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; i < 200; i++) await removeTempDir(await openTempDir(`worker-${worker}`));
      }),
    );
    expect(await gone(tempRoot())).toBe(true);
  });
});

describe("the recogniser's input and the reply spool", () => {
  let osTmp: string;
  let fakeDir: string;
  const originalTmpdir = process.env.TMPDIR;

  beforeAll(async () => {
    fakeDir = await mkdtemp(join(tmpdir(), "voxtrail-fake-recogniser-"));
    osTmp = await mkdtemp(join(tmpdir(), "voxtrail-os-tmp-"));
  });

  afterAll(async () => {
    process.env.TMPDIR = originalTmpdir;
    await rm(osTmp, { recursive: true, force: true });
    await rm(fakeDir, { recursive: true, force: true });
  });

  it("live in the Transcribe and Synthesize attempts' directories, and nothing is left after the run", async () => {
    // A recogniser that notes where its input is, and that it was there, and hears nothing.
    const fake = join(fakeDir, "recognise");
    const calls = join(fakeDir, "calls.log");
    await writeFile(
      fake,
      `#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = -infile ] && test -f "$2" && echo "$2" >> "${calls}"; shift; done\n`,
    );
    await chmod(fake, 0o755);
    const spooled: string[] = [];
    const synthesizer: Synthesizer = {
      processor: PROBE,
      synthesize: () => ({
        async *[Symbol.asyncIterator]() {
          yield new Uint8Array(640);
          spooled.push(...(await underRoot()));
          yield new Uint8Array(640);
        },
        timings: () => [],
      }),
    };
    const { deps } = await testDependencies({
      transcriber: new PocketsphinxTranscriber({ command: fake, cmnWarmup: false, callAdaptation: false }),
      reasoner: {
        processor: PROBE,
        reason: async () => ({
          intent: "other",
          entities: {},
          summary: "",
          match: { outcome: "not-found", searchedFor: [] },
          replyText: "Thanks.",
          processor: PROBE,
        }),
      },
      synthesizer,
    });
    const tone = new Int16Array(8000).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
    );
    await deps.store.put(
      "incoming/voicemail/a.wav",
      writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(tone)),
      { contentType: "audio/wav" },
    );
    // This worker's OS temp directory from here on (the store is elsewhere): anything left in it leaked.
    process.env.TMPDIR = osTmp;
    const handlers = createStageHandlers(deps);
    const event = {
      source: "aws.s3",
      "detail-type": "Object Created",
      time: "2026-01-01T00:00:01.000Z",
      detail: { bucket: { name: deps.store.bucket }, object: { key: "incoming/voicemail/a.wav" } },
    };
    const execution = { id: "arn:aws:states:us-east-1:000000000000:execution:vm:1", startTime: event.time };
    const job = (await handlers.ingest({ event, execution }, context)) as JobState;
    const transcribe = await handlers.transcribe(job, context);
    const reason = await handlers.reason({ ...job, transcribe } as ReasonInput, context);
    await handlers.synthesize({ ...job, transcribe, reason } as SynthesizeInput, context);

    const [input] = (await readFile(calls, "utf8")).trim().split("\n");
    expect(input?.startsWith(`${tempRoot()}/${job.jobId}-Transcribe-`)).toBe(true);
    expect(input).toMatch(/-Transcribe-[^/]+\/voxtrail-pocketsphinx-[^/]+\/input\.wav$/);
    expect(spooled.filter((entry) => entry.endsWith("reply.wav"))).toEqual([
      expect.stringMatching(new RegExp(`^${job.jobId}-Synthesize-[^/]+/voxtrail-reply-[^/]+/reply\\.wav$`)),
    ]);
    // Nothing left in the OS temp directory, not even the process's root.
    expect(tempRoot().startsWith(osTmp)).toBe(true);
    expect(await readdir(osTmp, { recursive: true })).toEqual([]);
  });
});
