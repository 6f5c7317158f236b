import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { encodeSamples, parseWav } from "@voxtrail/audio";
import { openDuckDbIndex } from "@voxtrail/cli/lineage-index";
import {
  type ActivityRecord,
  BoundaryPolicy,
  BusinessRecord,
  type Processor,
  type RedactionSettings,
  type SynthesisRequest,
  spokenForms,
  type Transcriber,
  type Transcript,
} from "@voxtrail/core";
import { boundaries, erase, LineageGraph, openLineageEvents, readLineage } from "@voxtrail/lineage";
import { boundariesFromIndex, reindexLineage } from "@voxtrail/lineage/edge-index";
import { BUNDLED_RECORDS_FILE, LocalRuntime } from "@voxtrail/local";
import { TimedSynthesisStream } from "@voxtrail/providers";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RAM_TEMP_ROOT, writeTone } from "../support/caller-tones";

/**
 * Done when (issue 41): with redaction on, no stored object outside the job's unredacted location,
 * and no byte sent to a third-party boundary, holds a caller's phone, order or account number as
 * digits or words. The real local pipeline (directory store, the local state machine, the real
 * handlers and the bundled records) with a transcriber that "hears" each fixture script, and a
 * synthesizer standing in for a third-party one that keeps every request it is sent.
 */

const SCRIPTS: Record<string, string> = JSON.parse(
  await readFile(new URL("../../fixtures/voicemail/scripts.json", import.meta.url), "utf8"),
);
/** More ways of saying the callers' numbers than the fixtures use. */
const EXTRA_SCRIPTS = {
  "pairs-and-oh": "Hi, it's Ahmed Khan, account forty four oh nine. My number is 555-618-3390.",
  "grouped-digits": "Tom Baker here about order five oh three four; call 555 730 1204 please.",
  cardinal: "Grace Kim, order seven thousand three hundred sixteen, the rug never came.",
};
const ALL_SCRIPTS: Record<string, string> = { ...SCRIPTS, ...EXTRA_SCRIPTS };
const NAMES = Object.keys(ALL_SCRIPTS);

const RECORDS = (await readFile(BUNDLED_RECORDS_FILE, "utf8"))
  .split("\n")
  .filter((line) => line.trim() !== "")
  .map((line) => BusinessRecord.parse(JSON.parse(line)));

/** Every number a caller said or a matched record holds, as digits and spoken digit by digit. */
const NUMBERS = [
  ...RECORDS.flatMap((record) => [
    record.orderNumber,
    record.accountNumber,
    record.phone?.replace(/\D/g, ""),
  ]),
  "6609",
  "5553441212",
]
  .filter((number): number is string => number !== undefined)
  .flatMap((number) => (number.length === 10 ? [number, number.slice(3)] : [number]));
/** The same numbers as the scripts say them in words, beyond one digit at a time. */
const WORD_FORMS = ["forty four oh nine", "five oh three four", "seven thousand three hundred sixteen"];

/** A third party's synthesizer: streams silence and keeps the text of every request it is sent. */
class RecordingThirdPartySynthesizer {
  readonly processor: Processor = {
    provider: "third-party-stub",
    model: "silence (test stub)",
    version: "1",
    boundary: { kind: "third-party", host: "api.cartesia.ai" },
  };
  readonly sent: string[] = [];

  synthesize(request: SynthesisRequest): TimedSynthesisStream {
    this.sent.push(request.text);
    return new SilenceStream(request);
  }
}

class SilenceStream extends TimedSynthesisStream {
  protected async *run(): AsyncGenerator<Uint8Array> {
    const { encoding, sampleRate, channels } = this.request.format;
    const chunk = encodeSamples(new Int16Array(Math.round(sampleRate / 20) * channels), encoding);
    this.timer.requestSent();
    this.timer.chunk(chunk.byteLength);
    yield chunk;
    this.timer.done();
  }
}

/** Hears script `i` in a voicemail of 0.25 + 0.1·i seconds (the tones below). */
const scriptTranscriber: Transcriber = {
  processor: {
    provider: "script-stub",
    model: "fixture scripts (test stub)",
    version: "1",
    boundary: { kind: "local" },
  },
  async transcribe(wav: Uint8Array, options: { language: string }): Promise<Transcript> {
    const { durationMs } = parseWav(wav);
    const index = Math.round((durationMs - 250) / 100);
    const text = ALL_SCRIPTS[NAMES[index] as string] as string;
    const words = text.split(/\s+/).map((word) => word.toLowerCase().replace(/[^a-z0-9'-]/g, ""));
    return {
      text,
      words: words.map((word, at) => ({ word, startMs: at * 10, endMs: at * 10 + 9 })),
      language: options.language,
      audioMs: durationMs,
      processor: scriptTranscriber.processor,
    };
  },
};

/** The local policy, with reply text allowed into the third party only redacted. */
async function policyRequiringRedaction(): Promise<BoundaryPolicy> {
  const local = BoundaryPolicy.parse(
    JSON.parse(await readFile(new URL("../../config/boundary-policy/local.json", import.meta.url), "utf8")),
  );
  return {
    ...local,
    kinds: {
      ...local.kinds,
      "reply-text": [
        ...(local.kinds["reply-text"] ?? []),
        { boundary: "third-party", hosts: ["api.cartesia.ai"], redaction: "required" },
      ],
      "reply-audio": [
        ...(local.kinds["reply-audio"] ?? []),
        { boundary: "third-party", hosts: ["api.cartesia.ai"] },
      ],
    },
  };
}

let workDir: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(RAM_TEMP_ROOT, "voxtrail-redaction-"));
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function runAll(redaction: RedactionSettings | undefined) {
  const storeDir = await mkdtemp(join(workDir, "store-"));
  const files = await Promise.all(
    NAMES.map(async (name, index) => {
      const path = join(workDir, `${name}-${index}.wav`);
      await writeTone(path, 220 + index * 40, 0.25 + index * 0.1);
      return { name: `${name}.wav`, path };
    }),
  );
  const synthesizer = new RecordingThirdPartySynthesizer();
  const runtime = await LocalRuntime.start({
    storeDir,
    engines: { transcriber: scriptTranscriber, synthesizer },
    boundaryPolicy: await policyRequiringRedaction(),
    retryIntervalMs: 1,
    ...(redaction ? { redaction } : {}),
  });
  try {
    const results = await runtime.run(files, { concurrency: 2 });
    return { storeDir, results, sent: synthesizer.sent };
  } finally {
    await runtime.close();
  }
}

/**
 * Every stored file's text, current objects and kept versions alike, by its key (a version as
 * `<key>@<version>`, named by its sidecar); audio is left out (it holds no text).
 */
async function storedTexts(storeDir: string): Promise<Map<string, string>> {
  const entries = await readdir(storeDir, { recursive: true, withFileTypes: true });
  const texts = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    if (bytes.subarray(0, 4).toString("latin1") === "RIFF") continue;
    let name = relative(storeDir, path);
    if (name.startsWith(".versions/") && !name.endsWith(".json")) {
      const sidecar = JSON.parse(await readFile(`${path}.json`, "utf8")) as { key: string };
      name = `${sidecar.key}@${entry.name}`;
    }
    texts.set(name, bytes.toString("utf8"));
  }
  return texts;
}

/**
 * The numbers `text` holds as digits (spaces, dashes, dots or commas between them allowed) or
 * words. Hashes, UUIDs and numeric JSON values are not caller data and are left out first.
 */
function leaks(text: string): string[] {
  const plain = text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, " ")
    .replace(/\b[0-9a-f]{12,}\b/gi, " ")
    .replace(/"[A-Za-z]+":\s*-?[0-9.]+/g, " ");
  const digits = plain.replace(/(?<=\d)[\s\-.,()]+(?=\d)/g, "");
  const words = plain.toLowerCase().replace(/[^a-z]+/g, " ");
  const found: string[] = [];
  for (const number of NUMBERS) {
    if (new RegExp(`(?<![0-9A-Za-z])${number}(?![0-9A-Za-z])`).test(digits)) found.push(number);
    for (const form of spokenForms(number).slice(1)) if (` ${words} `.includes(` ${form} `)) found.push(form);
  }
  for (const form of WORD_FORMS) if (` ${words} `.includes(` ${form} `)) found.push(form);
  return found;
}

describe("redaction on the local pipeline", () => {
  it("stores no caller's number outside the unredacted location, and sends none to the third party", async () => {
    const { storeDir, results, sent } = await runAll({ output: "redacted_and_unredacted" });
    expect(results.map((result) => [result.key, result.status])).toEqual(
      results.map((result) => [result.key, "SUCCEEDED"]),
    );
    const texts = await storedTexts(storeDir);
    const outside = [...texts].filter(([path]) => !path.split("/").includes("unredacted"));
    const inside = [...texts].filter(([path]) => path.split("/").includes("unredacted"));
    expect(outside.length).toBeGreaterThan(NAMES.length * 8);
    for (const [path, text] of outside) expect(leaks(text), path).toEqual([]);
    // The search finds what it looks for: the unredacted transcripts hold the numbers.
    expect(inside.length).toBeGreaterThanOrEqual(NAMES.length * 2);
    expect(inside.flatMap(([, text]) => leaks(text))).toEqual(
      expect.arrayContaining(["four two seven one", "5556183390", "forty four oh nine"]),
    );

    expect(sent).toHaveLength(NAMES.length);
    for (const text of sent) expect(leaks(text), text).toEqual([]);
    expect(sent.join("\n")).toContain("about your order");
    for (const record of RECORDS)
      for (const part of record.customerName?.split(" ") ?? []) expect(sent.join("\n")).not.toContain(part);

    // Lineage keeps the redactions (what, from where, how many of each kind) and the send as redacted.
    const records = outside
      .filter(([path]) => /(^|\/)lineage\/[^/]+\/[A-Za-z]+-\d+\.json$/.test(path))
      .map(([, text]) => JSON.parse(text) as ActivityRecord);
    const reason = records.filter((record) => record.stage === "Reason");
    expect(reason).toHaveLength(NAMES.length);
    for (const record of reason) {
      expect(record.redactions?.map((redaction) => redaction.output.split("/").at(-1))).toEqual([
        "transcript.json",
        "record.json",
        "reply.txt",
      ]);
      expect(record.redactions?.[0]?.from).toMatch(/\/unredacted\/transcript\.json$/);
    }
    const synthesize = records.filter((record) => record.stage === "Synthesize");
    for (const record of synthesize) {
      expect(
        record.policy?.flows.find(
          (flow) => flow.provider === "third-party-stub" && flow.kind === "reply-text",
        ),
      ).toMatchObject({ allowed: true, redacted: true });
    }
  }, 120_000);

  it("shows redacted and unredacted flows apart, and exports each redaction as masking column lineage", async () => {
    const { storeDir } = await runAll({ output: "redacted_and_unredacted" });
    const store = new DirectoryStore({ root: storeDir });
    const graph = LineageGraph.of(await readLineage(store));
    const rows = boundaries(graph).filter(
      (row) => row.kind === "reply-text" && row.boundary.kind === "third-party",
    );
    expect(rows).toEqual([expect.objectContaining({ redacted: true, entered: NAMES.length, refused: 0 })]);
    // The lineage index (DuckDB over its Parquet files) answers the same rows, `redacted` with them.
    await reindexLineage(store);
    const index = await openDuckDbIndex(store);
    if (!index) throw new Error("reindex wrote no index");
    try {
      expect(await boundariesFromIndex(index)).toEqual(boundaries(graph));
    } finally {
      await index.close();
    }

    const events = [...openLineageEvents(graph, { bucket: "voxtrail-test" })];
    const reply = events
      .flatMap((event) => event.outputs)
      .filter((dataset) => dataset.name.endsWith("/reply.txt"));
    expect(reply).toHaveLength(NAMES.length);
    for (const dataset of reply) {
      expect(dataset.facets.columnLineage).toMatchObject({
        fields: {
          content: {
            inputFields: [
              {
                name: expect.stringMatching(/\/unredacted\/transcript\.json$/),
                transformations: [{ type: "DIRECT", masking: true }],
              },
            ],
          },
        },
      });
      expect(dataset.facets.tags).toMatchObject({
        tags: expect.arrayContaining([{ key: "pii", value: "redacted", source: "voxtrail-redactor" }]),
      });
    }
    const unredacted = events
      .flatMap((event) => event.outputs)
      .filter((dataset) => dataset.name.includes("/unredacted/"));
    expect(unredacted.map((dataset) => dataset.facets.tags)).toEqual(
      unredacted.map(() =>
        expect.objectContaining({ tags: [{ key: "pii", value: "unredacted", source: "voxtrail" }] }),
      ),
    );
  }, 120_000);

  it("erases every copy: a job's erasure leaves nothing of its unredacted location", async () => {
    const { storeDir, results } = await runAll({ output: "redacted_and_unredacted" });
    const store = new DirectoryStore({ root: storeDir });
    for (const result of results) {
      const graph = LineageGraph.of(await readLineage(store));
      await erase(store, graph, `artifacts/${result.jobId}/reply.txt`);
    }
    const texts = await storedTexts(storeDir);
    expect(
      [...texts.keys()].filter((name) => name.includes("/unredacted/") && !name.startsWith(".versions/")),
    ).toEqual([]);
    for (const [path, text] of texts) expect(leaks(text), path).toEqual([]);
  }, 120_000);

  it("refuses to send unredacted reply text where the policy requires it redacted, having sent nothing", async () => {
    const { results, sent } = await runAll(undefined);
    for (const result of results) {
      expect(result.status).toBe("FAILED");
      expect(result.error?.error).toBe("SynthesizeFailed");
      expect(result.error?.cause).toContain("BoundaryViolation");
      expect(result.error?.cause).toContain("unredacted reply-text into third-party:api.cartesia.ai");
    }
    expect(sent).toEqual([]);
  }, 120_000);

  it("keeps only Transcribe's kinds out of the unredacted location with output 'redacted'", async () => {
    const { storeDir, results } = await runAll({ output: "redacted" });
    expect(results.every((result) => result.status === "SUCCEEDED")).toBe(true);
    const texts = await storedTexts(storeDir);
    const inside = [...texts].filter(([path]) => path.split("/").includes("unredacted"));
    const held = inside.flatMap(([, text]) => leaks(text));
    // Order and account numbers stay for Reason to find the record by; phone numbers are gone.
    expect(held).toEqual(expect.arrayContaining(["four two seven one", "forty four oh nine"]));
    expect(held.filter((form) => /^\d{10}$|^\d{7}$/.test(form) || form.split(" ").length >= 7)).toEqual([]);
    for (const [path, text] of texts)
      if (!inside.some(([other]) => other === path)) expect(leaks(text), path).toEqual([]);
  }, 120_000);
});
