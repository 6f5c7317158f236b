import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseWav } from "@voxtrail/audio";
import { PromptsReport } from "@voxtrail/core";
import type { PromptsJobResult } from "@voxtrail/local";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const JAPANESE = "お電話ありがとうございます。";

const workDir = temporaryDirectory("voxtrail-prompts-language-");

describe("voxtrail prompts on the embedded (English and Spanish) synthesizer", () => {
  it("speaks the English row and makes the Japanese one a bad row PromptLanguageUnsupported, exit 1", async () => {
    const manifest = join(workDir(), "languages.csv");
    await writeFile(
      manifest,
      `id,text,language\nwelcome,Thanks for calling.,en\ngreeting-ja,${JAPANESE},ja\n`,
    );
    const store = join(workDir(), "store");

    const { code, stdout, stderr } = await runCli(["prompts", manifest, "--store", store, "--json"], {
      VOXTRAIL_SYNTHESIZER: "local",
    });

    expect(code, stderr).toBe(1);
    const result: PromptsJobResult = JSON.parse(stdout);
    expect(result.status).toBe("SUCCEEDED");
    const report = PromptsReport.parse(result.report);
    expect(report.totals).toMatchObject({ rows: 2, succeeded: 1, failed: 0, notRun: 0, badRows: 1 });
    expect(report.prompts.map((prompt) => [prompt.id, prompt.status])).toEqual([["welcome", "succeeded"]]);
    const wav = parseWav(await readFile(join(store, report.prompts[0]?.key as string)));
    expect(wav.durationMs).toBeGreaterThan(500);
    expect(report.badRows).toEqual([
      {
        line: 3,
        id: "greeting-ja",
        error: "PromptLanguageUnsupported",
        message:
          'line 3: the language "ja" is not one the synthesizer local-sonic-endpoint speaks (en, es): choose a synthesizer that speaks it, or remove the row',
      },
    ]);
    expect(stderr).toMatch(/line 3.*PromptLanguageUnsupported/);
    expect(stdout + stderr).not.toContain(JAPANESE);
  }, 120_000);
});
