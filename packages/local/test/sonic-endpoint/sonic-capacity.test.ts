import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FliteEngine } from "../../src/flite/flite-engine";
import { type StartedSonicEndpoint, startSonicEndpoint } from "../../src/sonic-endpoint/server";
import { audioOf, eventsOf, invoke, localClient, payloadParts, sonicBody } from "./helpers";

// The endpoint's capacity through the real SageMaker Runtime client, with real timers: generation
// is paced so that a stream stays in flight while the next invocations arrive.

const TEXT = "Thanks for calling back.";
const engine = new FliteEngine();
const opened: StartedSonicEndpoint[] = [];

beforeAll(async () => {
  await engine.synthesizeWav(TEXT, "slt");
});
afterAll(async () => {
  for (const endpoint of opened) await endpoint.close();
});

async function open(options: Parameters<typeof startSonicEndpoint>[0]): Promise<StartedSonicEndpoint> {
  const endpoint = await startSonicEndpoint({ engine, ...options });
  opened.push(endpoint);
  return endpoint;
}

const body = sonicBody({ transcript: TEXT });
const THROTTLED = { name: "ModelError", OriginalStatusCode: 429, $metadata: { httpStatusCode: 424 } };

describe("capacity", () => {
  test("beyond instances x generations per instance, an invocation is refused before its stream as SageMaker relays the container's 429", async () => {
    const endpoint = await open({
      capacity: { generationsPerInstance: 1, instances: 1 },
      generationTime: { secondsPerAudioSecond: 1 },
    });
    const client = localClient(endpoint.url);
    const first = await invoke(client, body);
    await expect(invoke(client, body)).rejects.toMatchObject(THROTTLED);
    expect(audioOf(eventsOf(await payloadParts(first))).byteLength).toBeGreaterThan(0);
    const again = await invoke(client, body);
    expect(eventsOf(await payloadParts(again)).at(-1)).toMatchObject({ type: "done" });
    expect(endpoint.capacityUse()).toEqual({
      inFlight: { peak: 1, capacity: 1 },
      throttled: 1,
      instances: [{ at: expect.any(Number), count: 1 }],
    });
  });

  test("autoscaling adds an instance once the metric has breached the target and the instance has started", async () => {
    const endpoint = await open({
      capacity: {
        generationsPerInstance: 2,
        autoscaling: {
          minInstances: 1,
          maxInstances: 2,
          targetConcurrentRequestsPerInstance: 1,
          metricPeriodMs: 100,
          alarmDatapoints: 1,
          instanceStartupMs: 500,
        },
      },
      generationTime: { secondsPerAudioSecond: 3 },
    });
    const client = localClient(endpoint.url);
    const outcomes = await Promise.allSettled([
      invoke(client, body),
      invoke(client, body),
      invoke(client, body),
    ]);
    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(refused[0]?.reason).toMatchObject(THROTTLED);
    const streams = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
    await new Promise((resolve) => setTimeout(resolve, 1300));
    streams.push(await invoke(client, body));
    for (const stream of streams) await payloadParts(stream);
    const use = endpoint.capacityUse();
    expect(use.instances.map((entry) => entry.count)).toEqual([1, 2]);
    expect(use.inFlight).toEqual({ peak: 3, capacity: 4 });
    expect(use.throttled).toBe(1);
  });

  test("with a generation time, a stream lasts at least that time per second of its audio", async () => {
    const endpoint = await open({ generationTime: { secondsPerAudioSecond: 1 } });
    const startedAt = Date.now();
    const audio = audioOf(eventsOf(await payloadParts(await invoke(localClient(endpoint.url), body))));
    const audioMs = (audio.byteLength / 2 / 16000) * 1000;
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(Math.floor(audioMs));
  });
});
