import { stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { BadPromptRow, PromptRow } from "@voxtrail/core";
import { keys, promptKeys } from "@voxtrail/workflow";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ingestStage } from "../../src/handlers/ingest";
import { preparePromptsStage } from "../../src/handlers/prepare-prompts";
import type { PreparedPrompts } from "../../src/prompts/prompt-state";
import { invoke, testDependencies } from "../stage-dependencies";

const ROWS = 100_000;
/** Lines (1-based, the header is line 1) that hold a bad row, and the reason each must get. */
const BAD_LINES = new Map([
  [2, "PromptTextEmpty"],
  [50_001, "PromptIdDuplicate"],
  [ROWS + 1, "PromptTextControlCharacters"],
]);

function manifest(): string {
  const lines = ["id,text"];
  for (let line = 2; line <= ROWS + 1; line++) {
    const reason = BAD_LINES.get(line);
    if (reason === "PromptTextEmpty") lines.push(`p${line},`);
    else if (reason === "PromptIdDuplicate") lines.push(`p3,Press ${line} for the duplicate.`);
    else if (reason === "PromptTextControlCharacters") lines.push(`p${line},Bell\u0007 here`);
    else lines.push(`p${line},"Press ${line % 10}, then hash, for option ${line}."`);
  }
  return `${lines.join("\n")}\n`;
}

function objectCreated(bucket: string, key: string, etag: string, versionId?: string) {
  return {
    event: {
      source: "aws.s3" as const,
      "detail-type": "Object Created" as const,
      time: "2026-11-30T00:00:00Z",
      detail: {
        bucket: { name: bucket },
        object: { key, etag, ...(versionId === undefined ? {} : { "version-id": versionId }) },
      },
    },
    execution: {
      id: "arn:aws:states:local:000000000000:execution:test:1",
      startTime: "2026-11-30T00:00:00Z",
    },
  };
}

describe("preparePrompts on a 100,000-row manifest", () => {
  it("writes every valid row to rows.jsonl, names each bad row's line, and synthesizes nothing", async () => {
    // The test dependencies' synthesizer throws if called: preparing must not synthesize.
    const { deps } = await testDependencies();
    const key = promptKeys.incomingManifest("big.csv");
    const stored = await deps.store.put(key, manifest(), { contentType: "text/csv" });
    const input = objectCreated(deps.store.bucket, key, stored.etag ?? "");

    const prepared = (await invoke(preparePromptsStage, deps, input)) as PreparedPrompts;

    expect(prepared.rowCount).toBe(ROWS - BAD_LINES.size);
    expect(prepared.badRowCount).toBe(BAD_LINES.size);
    expect(prepared.rowsLocation).toEqual({
      bucket: deps.store.bucket,
      key: promptKeys.rows(prepared.jobId),
    });
    expect(prepared.manifest).toMatchObject({ kind: "prompt-manifest", key, sha256: stored.sha256 });
    const rowLines = (await deps.store.getBytes(prepared.rows.key)).toString("utf8").trimEnd().split("\n");
    expect(rowLines).toHaveLength(ROWS - BAD_LINES.size);
    const first = PromptRow.parse(JSON.parse(rowLines[0] as string));
    expect(first).toMatchObject({
      line: 3,
      id: "p3",
      text: "Press 3, then hash, for option 3.",
      format: "telephony",
    });
    const bad = z
      .array(BadPromptRow)
      .parse(JSON.parse((await deps.store.getBytes(prepared.badRows.key)).toString()));
    expect(bad.map((row) => [row.line, row.error])).toEqual([...BAD_LINES]);
    expect(JSON.stringify(prepared).length).toBeLessThan(4096);

    // One activity record, linking the manifest to what was written.
    const records = await deps.store.list(`lineage/${prepared.jobId}/`);
    expect(records).toEqual([`lineage/${prepared.jobId}/prepareprompts-01.json`]);
    const record = JSON.parse((await deps.store.getBytes(records[0] as string)).toString());
    expect(record.inputs.map((ref: { key: string }) => ref.key)).toEqual([key]);
    expect(record.outputs.map((ref: { key: string }) => ref.key)).toEqual([
      prepared.rows.key,
      prepared.badRows.key,
    ]);

    // Preparing the same manifest again writes nothing: same pointers, no new record, same files.
    const rowsFile = fileURLToPath(deps.store.uri(prepared.rows.key));
    const before = (await stat(rowsFile)).mtimeMs;
    const again = (await invoke(preparePromptsStage, deps, input)) as PreparedPrompts;
    expect(again.rows).toEqual(prepared.rows);
    expect(await deps.store.list(`lineage/${prepared.jobId}/`)).toEqual(records);
    expect((await stat(rowsFile)).mtimeMs).toBe(before);
  }, 120_000);
});

describe("preparePrompts reads exactly the manifest its event named", () => {
  const first = "id,text\np1,Press one.\np2,Press two.\n";
  const second = "id,text\nq1,Something else.\n";

  it("by its version id, though the key was overwritten since", async () => {
    const { deps } = await testDependencies();
    const key = promptKeys.incomingManifest("menu.csv");
    const named = await deps.store.put(key, first, { contentType: "text/csv" });
    await deps.store.put(key, second, { contentType: "text/csv" });
    const input = objectCreated(deps.store.bucket, key, named.etag ?? "", named.versionId);

    const prepared = (await invoke(preparePromptsStage, deps, input)) as PreparedPrompts;

    expect(prepared.manifest).toMatchObject({ key, sha256: named.sha256, bytes: named.bytes });
    expect(prepared.rowCount).toBe(2);
    const rows = (await deps.store.getBytes(prepared.rows.key)).toString("utf8");
    expect(rows).toContain('"id":"p1"');
    expect(rows).not.toContain('"id":"q1"');
  });

  it("by its etag without a version id: ObjectChanged once the key holds another upload", async () => {
    const { deps } = await testDependencies();
    const key = promptKeys.incomingManifest("menu.csv");
    const named = await deps.store.put(key, first, { contentType: "text/csv" });
    await deps.store.put(key, second, { contentType: "text/csv" });

    const prepare = invoke(
      preparePromptsStage,
      deps,
      objectCreated(deps.store.bucket, key, named.etag ?? ""),
    );

    await expect(prepare).rejects.toMatchObject({ name: "ObjectChanged" });
  });
});

describe("preparePrompts claims the job before any work", () => {
  it("answers a second execution while the first runs as a duplicate, and writes nothing", async () => {
    const key = promptKeys.incomingManifest("menu.csv");
    const running = new Set(["arn:aws:states:local:000000000000:execution:test:1"]);
    const { deps } = await testDependencies({
      executions: { isRunning: async (executionId) => running.has(executionId) },
    });
    const stored = await deps.store.put(key, "id,text\np1,Press one.\n", { contentType: "text/csv" });
    const input = objectCreated(deps.store.bucket, key, stored.etag ?? "", stored.versionId);
    const prepared = (await invoke(preparePromptsStage, deps, input)) as PreparedPrompts;
    const before = await deps.store.list("");

    const again = await invoke(preparePromptsStage, deps, {
      ...input,
      execution: { ...input.execution, id: "arn:aws:states:local:000000000000:execution:test:2" },
    });

    expect(again).toEqual({
      jobId: prepared.jobId,
      duplicate: { reason: "in-progress", executionId: input.execution.id, run: 1 },
    });
    expect(await deps.store.list("")).toEqual(before);
    expect(await deps.store.list(keys.claimPrefix(prepared.jobId))).toEqual([keys.claim(prepared.jobId, 1)]);
  });

  it("refuses an event for another bucket with Ingest's InvalidInput, having written nothing", async () => {
    const { deps } = await testDependencies();
    const key = promptKeys.incomingManifest("menu.csv");
    const stored = await deps.store.put(key, "id,text\np1,Press one.\n", { contentType: "text/csv" });
    const before = await deps.store.list("");
    const foreign = objectCreated("elsewhere", key, stored.etag ?? "", stored.versionId);
    const prompts = await invoke(preparePromptsStage, deps, foreign).catch((error: Error) => error);
    const voicemail = objectCreated("elsewhere", "incoming/voicemail/a.wav", stored.etag ?? "");
    const ingest = await invoke(ingestStage, deps, voicemail).catch((error: Error) => error);

    expect(prompts).toMatchObject({ name: "InvalidInput" });
    expect((prompts as Error).message).toBe((ingest as Error).message);
    expect((await deps.store.list("")).filter((k) => !k.startsWith("lineage/"))).toEqual(before);
  });
});

describe("preparePrompts on a manifest without rows", () => {
  it.each([
    ["an empty file", "empty.csv", ""],
    ["only blank lines", "blank.jsonl", "\n  \r\n\n"],
    ["a CSV header alone", "header.csv", "id,text,voice\r\n"],
  ])("fails with PromptManifestEmpty on %s", async (_case, name, body) => {
    const { deps } = await testDependencies();
    const key = promptKeys.incomingManifest(name);
    const stored = await deps.store.put(key, body, { contentType: "text/plain" });

    const prepare = invoke(
      preparePromptsStage,
      deps,
      objectCreated(deps.store.bucket, key, stored.etag ?? ""),
    );

    await expect(prepare).rejects.toMatchObject({
      name: "PromptManifestEmpty",
      retryable: false,
      message: expect.stringMatching(/^the manifest has no prompt rows: add one line per prompt/),
    });
  });
});

describe("preparePrompts checks each row's language against the synthesizer's", () => {
  const body = "id,text,language\np1,Press one.,en\np2,Secret Japanese text.,ja\np3,Press three.,\n";

  async function prepare(synthesizer: { languages?: readonly string[]; provider: string }) {
    const { deps } = await testDependencies();
    deps.synthesizer = {
      ...deps.synthesizer,
      processor: { ...deps.synthesizer.processor, provider: synthesizer.provider },
      ...(synthesizer.languages ? { languages: synthesizer.languages } : {}),
    };
    const key = promptKeys.incomingManifest("languages.csv");
    const stored = await deps.store.put(key, body, { contentType: "text/csv" });
    const prepared = (await invoke(
      preparePromptsStage,
      deps,
      objectCreated(deps.store.bucket, key, stored.etag ?? ""),
    )) as PreparedPrompts;
    const bad = z
      .array(BadPromptRow)
      .parse(JSON.parse((await deps.store.getBytes(prepared.badRows.key)).toString()));
    return { prepared, bad };
  }

  it("makes a Japanese row a bad row PromptLanguageUnsupported for an English-only synthesizer", async () => {
    const { prepared, bad } = await prepare({ provider: "local-sonic-endpoint", languages: ["en"] });

    expect(prepared.rowCount).toBe(2);
    expect(bad).toEqual([
      {
        line: 3,
        id: "p2",
        error: "PromptLanguageUnsupported",
        message:
          'line 3: the language "ja" is not one the synthesizer local-sonic-endpoint speaks (en): choose a synthesizer that speaks it, or remove the row',
      },
    ]);
  });

  it("keeps it for a synthesizer that speaks Japanese", async () => {
    const { prepared, bad } = await prepare({ provider: "cartesia-api", languages: ["en", "ja"] });

    expect(prepared.rowCount).toBe(3);
    expect(bad).toEqual([]);
  });
});
