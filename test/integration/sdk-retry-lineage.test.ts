import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfiguredRetryStrategy,
  DEFAULT_MAX_ATTEMPTS,
  INITIAL_RETRY_TOKENS,
  RETRY_COST,
} from "@smithy/core/retry";
import { ActivityRecord } from "@voxtrail/core";
import { collectInputFiles, type JobResult, type SonicEndpoint, startSonicEndpoint } from "@voxtrail/local";
import { RETRY_CLASSES } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BAD_FIXTURES_DIR } from "../../scripts/make-bad-fixtures";
import { runtimeWithSonicAt, sonicClient } from "../support/sonic-sagemaker-runtime";

/** The shortest voicemail that goes all the way to Synthesize: three seconds of silence. */
const VOICEMAIL = join(BAD_FIXTURES_DIR, "silence.wav");
/** The SDK's default for standard retry mode: the first try and two retries. */
const SDK_MAX_ATTEMPTS = DEFAULT_MAX_ATTEMPTS;
/**
 * The definition's Retry MaxAttempts for a throttle: Step Functions runs a throttled stage at
 * most this many times more.
 */
const STAGE_RETRIES = RETRY_CLASSES.throttled.policy.maxAttempts;

let workDir: string;
let sonic: SonicEndpoint;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-sdk-retry-"));
  sonic = await startSonicEndpoint();
});

afterAll(async () => {
  await sonic.close();
  await rm(workDir, { recursive: true, force: true });
});

/**
 * A front for the local Sonic endpoint that answers its first `throttled` invocations as SageMaker
 * does when the endpoint has no capacity for now: HTTP 429 `ModelNotReadyException`, which the SDK
 * retries itself. Every other request is passed through.
 */
async function throttlingFront(throttled: number) {
  let invocations = 0;
  const server: Server = createServer((req, res) => {
    if (req.url?.endsWith("/invocations-response-stream")) {
      invocations += 1;
      if (invocations <= throttled) {
        req.resume();
        res.writeHead(429, {
          "content-type": "application/json",
          "x-amzn-errortype": "ModelNotReadyException",
          "x-amzn-requestid": randomUUID(),
        });
        res.end(JSON.stringify({ Message: "Model is not ready yet." }));
        return;
      }
    }
    const upstream = request(
      new URL(req.url ?? "/", sonic.url),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    invocations: () => invocations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Runs the voicemail through the local runtime with sonic-sagemaker behind `url`, the client
 * retrying as the SDK's standard mode does (its attempts, its throttling errors) but after 10 ms
 * instead of its jittered backoff: an endpoint that never recovers is asked
 * stage attempts x SDK attempts times, and those seconds of backoff are not what is tested.
 */
async function runThrough(url: string, store: string): Promise<JobResult> {
  const client = sonicClient(url, { retryStrategy: new ConfiguredRetryStrategy(SDK_MAX_ATTEMPTS, () => 10) });
  const runtime = await runtimeWithSonicAt(url, store, client);
  try {
    const [result] = await runtime.run(await collectInputFiles([VOICEMAIL]), { concurrency: 1 });
    return result as JobResult;
  } finally {
    await runtime.close();
  }
}

async function synthesizeAttempts(store: string, jobId: string): Promise<ActivityRecord[]> {
  const dir = join(store, "lineage", jobId);
  const names = (await readdir(dir)).filter((name) => name.startsWith("synthesize-")).sort();
  return Promise.all(
    names.map(async (name) => ActivityRecord.parse(JSON.parse(await readFile(join(dir, name), "utf8")))),
  );
}

describe("SDK retries inside a stage attempt, recorded in its activity record", () => {
  it("records 2 SDK attempts in one Synthesize attempt when the endpoint answers 429 once", async () => {
    const front = await throttlingFront(1);
    const store = join(workDir, "once");
    try {
      const result = await runThrough(front.url, store);
      expect(result.status).toBe("SUCCEEDED");
      expect(front.invocations()).toBe(2);
      const attempts = await synthesizeAttempts(store, result.jobId);
      // The SDK's retry stayed inside the stage attempt: Step Functions saw one success.
      expect(attempts.map((attempt) => [attempt.attempt, attempt.outcome])).toEqual([[1, "succeeded"]]);
      expect(attempts[0]?.sdkCalls).toEqual([
        {
          service: "sagemaker-runtime",
          command: "InvokeEndpointWithResponseStreamCommand",
          attempts: 2,
          totalRetryDelayMs: expect.any(Number),
          outcome: "succeeded",
        },
      ]);
      expect(attempts[0]?.sdkCalls?.[0]?.totalRetryDelayMs).toBeGreaterThan(0);
    } finally {
      await front.close();
    }
  }, 180_000);

  it("bounds the two retry layers: an endpoint that never recovers sees each stage attempt's SDK retries until the client's retry quota runs out", async () => {
    const front = await throttlingFront(Number.POSITIVE_INFINITY);
    const store = join(workDir, "never");
    try {
      const result = await runThrough(front.url, store);
      expect(result.status).toBe("FAILED");
      expect(result.error?.cause).toMatch(/^SynthesisThrottled: SageMaker ModelNotReadyException/);
      const stageAttempts = 1 + STAGE_RETRIES;
      // The SDK's standard mode spends RETRY_COST of its client's INITIAL_RETRY_TOKENS a retry and
      // earns none back from failures: after that, each stage attempt sends one request.
      const sdkRetries = Math.min(stageAttempts * (SDK_MAX_ATTEMPTS - 1), INITIAL_RETRY_TOKENS / RETRY_COST);
      expect(front.invocations()).toBe(stageAttempts + sdkRetries);
      const attempts = await synthesizeAttempts(store, result.jobId);
      expect(attempts).toHaveLength(stageAttempts);
      for (const attempt of attempts) {
        expect(attempt.outcome).toBe("failed");
        expect(attempt.error?.name).toBe("SynthesisThrottled");
        expect(attempt.sdkCalls).toEqual([expect.objectContaining({ outcome: "failed" })]);
      }
      const sent = attempts.map((attempt) => attempt.sdkCalls?.[0]?.attempts);
      expect(sent.reduce((sum = 0, n = 0) => sum + n, 0)).toBe(front.invocations());
      expect(sent[0]).toBe(SDK_MAX_ATTEMPTS);
      expect(sent.at(-1)).toBe(1);
    } finally {
      await front.close();
    }
  }, 180_000);

  it("leaves sdkCalls out of the records of stages that made no SDK call", async () => {
    const store = join(workDir, "local");
    const front = await throttlingFront(0);
    try {
      const result = await runThrough(front.url, store);
      const transcribe = ActivityRecord.parse(
        JSON.parse(await readFile(join(store, "lineage", result.jobId, "transcribe-01.json"), "utf8")),
      );
      expect(transcribe.sdkCalls).toBeUndefined();
      const [synthesize] = await synthesizeAttempts(store, result.jobId);
      expect(synthesize?.sdkCalls).toEqual([expect.objectContaining({ attempts: 1, totalRetryDelayMs: 0 })]);
    } finally {
      await front.close();
    }
  }, 180_000);
});
