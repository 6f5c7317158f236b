import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLED_VOICEMAILS_DIR, collectInputFiles, type JobResult, LocalRuntime } from "@voxtrail/local";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLineageValidator } from "../support/openlineage-schema";
import { runCli } from "./run-cli";

let store: string;
let results: JobResult[];

beforeAll(async () => {
  store = await mkdtemp(join(tmpdir(), "voxtrail-lineage-e2e-"));
  const files = (await collectInputFiles([BUNDLED_VOICEMAILS_DIR])).filter((file) =>
    ["voicemail/billing.wav", "voicemail/reschedule.wav"].includes(file.name),
  );
  const runtime = await LocalRuntime.start({ storeDir: store });
  try {
    results = await runtime.run(files, { concurrency: 2 });
  } finally {
    await runtime.close();
  }
}, 300_000);

afterAll(async () => {
  await rm(store, { recursive: true, force: true });
});

const lineage = (...args: string[]) => runCli(["lineage", ...args, "--store", store]);

describe("voxtrail lineage over a real local run of the fixtures", () => {
  it("ran both voicemails", () => {
    expect(results.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
  });

  it("traces reply audio back through every stage to the caller's audio", async () => {
    const { jobId, key } = results[0]!;
    const traced = await lineage("trace", `artifacts/${jobId}/reply.wav`, "--json");
    expect(traced.code).toBe(0);
    const stages: string[] = [];
    for (let node = JSON.parse(traced.stdout); node; node = node.inputs[0]) {
      stages.push(node.producedBy?.stage ?? node.origin);
      if (!node.inputs[0]) expect(node.artifact).toMatchObject({ key, kind: "source-audio" });
    }
    expect(stages).toEqual(["Synthesize", "Reason", "Transcribe", "Ingest", "source"]);
    const text = await lineage("trace", `artifacts/${jobId}/reply.wav`);
    expect(text.stdout).toMatch(/processor pocketsphinx /);
  });

  it("lists what the source reached, counts boundaries, and verifies clean", async () => {
    const { jobId, key } = results[0]!;
    const impact = JSON.parse((await lineage("impact", key, "--json")).stdout);
    expect(impact.jobs).toEqual([jobId]);
    expect(impact.artifacts.map((a: { kind: string }) => a.kind).sort()).toEqual(
      ["normalized-audio", "record", "reply-audio", "reply-text", "report", "transcript"].sort(),
    );
    const rows = JSON.parse((await lineage("boundaries", "--json")).stdout) as Array<{
      kind: string;
      entered: number;
    }>;
    expect(rows.find((row) => row.kind === "transcript")?.entered).toBeGreaterThanOrEqual(2);
    const verified = await lineage("verify");
    expect(verified.stdout).toMatch(/^OK: 2 job\(s\)/);
    expect(verified.code).toBe(0);
  });

  it("fails verify naming any artifact altered by one byte", async () => {
    const { jobId } = results[1]!;
    for (const file of ["normalized.wav", "transcript.json", "record.json", "reply.txt", "reply.wav"]) {
      const path = join(store, "artifacts", jobId, file);
      const original = await readFile(path);
      const altered = Buffer.from(original);
      altered[altered.length >> 1] = (altered[altered.length >> 1] ?? 0) ^ 0x80;
      await writeFile(path, altered);
      const failed = await lineage("verify", "--json");
      await writeFile(path, original);
      expect(failed.code, file).toBe(1);
      expect(JSON.parse(failed.stdout).issues, file).toEqual([
        expect.objectContaining({ problem: "hash-mismatch", key: `artifacts/${jobId}/${file}` }),
      ]);
    }
  });

  it("exports OpenLineage events that validate against the schema", async () => {
    const validate = await openLineageValidator();
    const exported = await lineage("export", "--format", "openlineage");
    const events = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.length).toBe(2 * 2 * 5);
    for (const event of events) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
  });

  it("erases a source and everything derived, after which verify reports the chain as erased", async () => {
    const { jobId, key } = results[0]!;
    const erased = await lineage("erase", key, "--json");
    expect(JSON.parse(erased.stdout).erased).toHaveLength(7);
    const verified = await lineage("verify", "--json");
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout).erased).toEqual([expect.objectContaining({ jobId })]);
  });
});
