import { DataZoneClient } from "@aws-sdk/client-datazone";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLineageValidator } from "../../../test/support/openlineage-schema";
import { LineageGraph, openLineageEvents, postToDataZone, readLineage } from "../src/index";
import { startDataZoneEndpoint } from "./datazone-server";
import { type SyntheticJob, syntheticStore } from "./synthetic-jobs";

let graph: LineageGraph;
let jobs: SyntheticJob[];
let remove: () => Promise<void>;

beforeAll(async () => {
  const written = await syntheticStore("voxtrail-openlineage-");
  ({ jobs, remove } = written);
  graph = LineageGraph.of(await readLineage(written.store));
});

afterAll(() => remove());

describe("OpenLineage export", () => {
  it("writes START and COMPLETE per stage run, every event valid against the OpenLineage schema", async () => {
    const validate = await openLineageValidator();
    const events = [...openLineageEvents(graph, { bucket: "voxtrail-local" })];
    expect(events).toHaveLength(2 * 5 * 2);
    for (const event of events) {
      expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(validate({ ...events[0], run: { runId: "not-a-uuid" } })).toBe(false);
    expect(events.filter((e) => e.eventType === "START")).toHaveLength(10);
    expect(events.filter((e) => e.eventType === "COMPLETE")).toHaveLength(10);
  });

  it("names datasets as S3 objects and carries boundary, hashes and timings in prefixed facets", () => {
    const job = jobs[0]!;
    const complete = [...openLineageEvents(graph, { bucket: "voxtrail-local" })].find(
      (e) => e.eventType === "COMPLETE" && e.job.name === "voicemail.Synthesize",
    )!;
    expect(complete.outputs).toEqual([
      {
        namespace: "s3://voxtrail-local",
        name: job.artifacts.replyAudio.key,
        facets: {
          voxtrail_hashes: expect.objectContaining({
            sha256: job.artifacts.replyAudio.sha256,
            kind: "reply-audio",
            uri: expect.stringMatching(/^file:\/\//),
            _producer: expect.any(String),
            _schemaURL: expect.any(String),
          }),
        },
      },
    ]);
    expect(Object.keys(complete.run.facets).sort()).toEqual([
      "parent",
      "voxtrail_attempt",
      "voxtrail_boundary",
      "voxtrail_timings",
    ]);
    for (const name of Object.keys(complete.run.facets).filter((n) => n !== "parent")) {
      expect(name).toMatch(/^voxtrail_[a-z]+$/);
    }
    expect(complete.run.facets.voxtrail_boundary).toMatchObject({
      compute: { kind: "local" },
      policy: { environment: "local", outcome: "allowed" },
    });
  });
});

describe("export to Amazon DataZone", () => {
  it("posts every event with PostLineageEvent and a client token, and a second export adds nothing", async () => {
    const endpoint = await startDataZoneEndpoint();
    try {
      const client = new DataZoneClient({
        endpoint: endpoint.url,
        region: "us-east-1",
        credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
      });
      const events = [...openLineageEvents(graph, { bucket: "voxtrail-local" })];
      const first = await postToDataZone("dzd_test123", events, { client });
      expect(first.posted).toHaveLength(events.length);
      expect(first.posted.every((p) => typeof p.id === "string")).toBe(true);
      expect(endpoint.received).toHaveLength(events.length);
      expect(endpoint.received.every((r) => r.domainId === "dzd_test123" && r.clientToken)).toBe(true);
      expect(endpoint.received.map((r) => r.event)).toEqual(
        expect.arrayContaining(events.map((e) => JSON.parse(JSON.stringify(e)))),
      );
      // START of each run reaches DataZone before the run's end.
      const order = endpoint.received.map((r) => r.clientToken!);
      for (const event of events.filter((e) => e.eventType === "START")) {
        expect(order.indexOf(`${event.run.runId}-START`)).toBeLessThan(
          order.indexOf(`${event.run.runId}-COMPLETE`),
        );
      }

      const second = await postToDataZone("dzd_test123", events, { client });
      expect(second.posted.map((p) => p.id)).toEqual(first.posted.map((p) => p.id));
      expect(endpoint.received).toHaveLength(events.length);
      expect(endpoint.requests()).toBe(2 * events.length);
    } finally {
      await endpoint.close();
    }
  });
});
