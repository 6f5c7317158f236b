import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ActivityRecord } from "@voxtrail/core";
import {
  BUNDLED_VOICEMAILS_DIR,
  collectInputFiles,
  type JobResult,
  type SonicEndpoint,
  startSonicEndpoint,
} from "@voxtrail/local";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeWithSonicAt } from "../support/sonic-sagemaker-runtime";

const JOBS = 3;
/** Invocation 1 is refused with 429; invocations 2 and 3 break mid-stream: three faults in all. */
const FAULTS_INJECTED = 3;

let workDir: string;
let endpoint: SonicEndpoint;
let invocations = 0;
let results: JobResult[];
let records: ActivityRecord[];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-faults-"));
  endpoint = await startSonicEndpoint({
    faults: {
      modelError: { originalStatus: 429, requests: 1 },
      streamError: { afterChunk: 3, requests: FAULTS_INJECTED },
    },
    onRequest: ({ path }) => {
      if (path.endsWith("/invocations-response-stream")) invocations += 1;
    },
  });
  // Three jobs: the same short voicemail under three names, so every reply is the same audio.
  const inputs = join(workDir, "inputs");
  await mkdir(inputs);
  for (let index = 1; index <= JOBS; index++) {
    await copyFile(join(BUNDLED_VOICEMAILS_DIR, "no-message.wav"), join(inputs, `call-${index}.wav`));
  }
  const store = join(workDir, "store");
  const runtime = await runtimeWithSonicAt(endpoint.url, store);
  try {
    results = await runtime.run(await collectInputFiles([inputs]), { concurrency: JOBS });
  } finally {
    await runtime.close();
  }
  records = [];
  for (const result of results) {
    const dir = join(store, keys.lineagePrefix(result.jobId));
    for (const name of (await readdir(dir)).filter((file) => file.endsWith(".json"))) {
      records.push(ActivityRecord.parse(JSON.parse(await readFile(join(dir, name), "utf8"))));
    }
  }
}, 300_000);

afterAll(async () => {
  await endpoint.close();
  await rm(workDir, { recursive: true, force: true });
});

describe("a batch against an endpoint that throttles once and breaks two streams", () => {
  it("survives every injected fault: each job succeeds", () => {
    expect(results.map((result) => result.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
    expect(invocations).toBe(JOBS + FAULTS_INJECTED);
  });

  it("records every fault as a failed synthesis attempt, named, with no output", () => {
    const failed = records.filter((record) => record.stage === "Synthesize" && record.outcome === "failed");
    expect(failed.map((record) => record.error?.name).sort()).toEqual([
      "SynthesisStreamInterrupted",
      "SynthesisStreamInterrupted",
      "SynthesisThrottled",
    ]);
    expect(failed.every((record) => record.outputs.length === 0)).toBe(true);
    // Retries are numbered per job: the successful attempt follows the failed ones.
    for (const result of results) {
      const attempts = records
        .filter((record) => record.jobId === result.jobId && record.stage === "Synthesize")
        .sort((a, b) => a.attempt - b.attempt);
      expect(attempts.at(-1)?.outcome).toBe("succeeded");
      expect(attempts.map((record) => record.attempt)).toEqual(attempts.map((_, index) => index + 1));
    }
  });

  it("writes one complete reply per job, the same audio whatever failed before it", () => {
    const replies = records
      .filter((record) => record.stage === "Synthesize" && record.outcome === "succeeded")
      .map((record) => record.outputs[0]);
    expect(replies).toHaveLength(JOBS);
    expect(new Set(replies.map((reply) => reply?.sha256)).size).toBe(1);
  });
});
