import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseWav } from "@voxtrail/audio";
import { PromptsReport } from "@voxtrail/core";
import type { PromptsJobResult } from "@voxtrail/local";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./run-cli";

/** Enough rows for the Map to run several prompts at once and for bad rows among them, first to last. */
const ROWS = 60;
/** Manifest lines (the header is line 1) holding a bad row, with the reason the report must give. */
const BAD = new Map<number, { row: string; error: string }>([
  [7, { row: "p7,,,", error: "PromptTextEmpty" }],
  [22, { row: "p22,Press one\u0007 now.,,", error: "PromptTextControlCharacters" }],
  [35, { row: "p3,Again.,,", error: "PromptIdDuplicate" }],
  [48, { row: "p48,Hi.,,mp3", error: "PromptFormatUnknown" }],
  [61, { row: "../p61,Hi.,,", error: "PromptIdInvalid" }],
]);

/** {@link ROWS} rows, short texts (flite runs one child process per prompt), a few of them bad. */
function manifest(): string {
  const lines = ["id,text,voice,format"];
  for (let line = 2; line <= ROWS + 1; line++) {
    lines.push(BAD.get(line)?.row ?? `p${line},Press ${line % 10}.,,`);
  }
  return `${lines.join("\n")}\n`;
}

/** Every object in the store with its sha256 and mtime: what a rerun must leave as it is. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) =>
    entry.isFile(),
  );
  const entries = await Promise.all(
    files.map(async (entry) => {
      const path = join(entry.parentPath, entry.name);
      const sha = createHash("sha256")
        .update(await readFile(path))
        .digest("hex");
      return [path.slice(dir.length), `${sha} ${(await stat(path)).mtimeMs}`] as const;
    }),
  );
  return new Map(entries.sort(([a], [b]) => a.localeCompare(b)));
}

let workDir: string;
let store: string;
let manifestPath: string;
let first: { code: number; stdout: string; stderr: string };
let result: PromptsJobResult;
let report: PromptsReport;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-prompts-e2e-"));
  store = join(workDir, "store");
  manifestPath = join(workDir, "menu.csv");
  await writeFile(manifestPath, manifest());
  first = await runCli(["prompts", manifestPath, "--store", store, "--concurrency", "4", "--json"]);
  result = JSON.parse(first.stdout);
  report = PromptsReport.parse(result.report);
}, 1_200_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe(`voxtrail prompts on a ${ROWS}-row manifest with bad rows`, () => {
  it("synthesizes every good row and exits 1 because some rows were bad", () => {
    expect(result.status).toBe("SUCCEEDED");
    expect(report.totals).toMatchObject({
      rows: ROWS,
      succeeded: ROWS - BAD.size,
      failed: 0,
      notRun: 0,
      badRows: BAD.size,
    });
    expect(first.code).toBe(1);
  });

  it("writes a Connect-ready WAV for every good row: mu-law, 8000 Hz, one channel, from the header", async () => {
    expect(report.prompts).toHaveLength(ROWS - BAD.size);
    for (const prompt of report.prompts) {
      expect(prompt.status).toBe("succeeded");
      expect(prompt.key).toBe(`prompts/${result.jobId}/${prompt.id}.wav`);
      const bytes = await readFile(join(store, prompt.key as string));
      const info = parseWav(bytes);
      expect([info.encoding, info.sampleRate, info.channels, info.bitsPerSample]).toEqual([
        "pcm_mulaw",
        8000,
        1,
        8,
      ]);
      expect(info.durationMs).toBeGreaterThan(100);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(prompt.sha256);
      expect(prompt.ttfbMs).toBeGreaterThan(0);
      expect(prompt.audioMs).toBeCloseTo(info.durationMs, 0);
    }
  });

  it("names each bad row with its line and reason, in the report and on the console", () => {
    expect(report.badRows.map((row) => [row.line, row.error])).toEqual(
      [...BAD].map(([line, { error }]) => [line, error]),
    );
    for (const [line, { error }] of BAD) {
      expect(first.stderr).toContain(`bad  line ${line}`);
      expect(first.stderr).toMatch(new RegExp(`line ${line}.*${error}`));
    }
    expect(first.stderr).toContain(
      `${ROWS} row(s): ${ROWS - BAD.size} succeeded, 0 failed, ${BAD.size} bad row(s)`,
    );
  });

  it("keeps lineage that verifies, signed and indexed: every prompt traced to the manifest", async () => {
    // The job ends with its lineage summary, which the run signs and indexes.
    expect(first.stderr).toMatch(/lineage signed: lineage-digests\/s\d{12}\.json covers 1 job\(s\)/);
    expect(first.stderr).toMatch(/indexed: 1 job\(s\)/);
    const verify = await runCli(["lineage", "verify", "--store", store]);
    expect(verify.stdout + verify.stderr).toMatch(/0 problem/);
    expect(verify.stdout).toMatch(/1 job\(s\) as signed, 0 not signed yet/);
    expect(verify.code).toBe(0);
  }, 120_000);

  it("prints the cloud definition it ran, with the Map's concurrency", async () => {
    const printed = await runCli(["definition", "prompts", "--concurrency", "8"]);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout).States.SynthesizePrompts).toMatchObject({
      MaxConcurrency: 8,
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED" } },
    });
  });

  it("creates nothing new when the same manifest runs again", async () => {
    const before = await snapshot(store);
    const again = await runCli(["prompts", manifestPath, "--store", store, "--concurrency", "4", "--json"]);
    const rerun: PromptsJobResult = JSON.parse(again.stdout);
    expect(rerun.jobId).toBe(result.jobId);
    expect(rerun.report).toEqual(result.report);
    expect(again.code).toBe(1);
    expect(await snapshot(store)).toEqual(before);
  }, 600_000);
});

describe("voxtrail lineage erase of a prompts job", () => {
  it("leaves no version of its manifest, rows, results, audio or report anywhere in the store", async () => {
    const erased = await runCli([
      "lineage",
      "erase",
      `prompts/${result.jobId}/report.json`,
      "--store",
      store,
    ]);
    expect(erased.code, erased.stderr).toBe(0);
    // Every file the store holds, current or kept as a version, sidecars included.
    const files = (await readdir(store, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name));
    const holdingText = [];
    for (const file of files) if ((await readFile(file)).includes("Press 9.")) holdingText.push(file);
    expect(holdingText.map((file) => file.slice(store.length))).toEqual([]);
    expect(files.filter((file) => file.includes(`/prompts/${result.jobId}/`))).toEqual([]);
    const verified = await runCli(["lineage", "verify", "--store", store]);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toContain(`erased  ${result.jobId}`);
  }, 120_000);
});
