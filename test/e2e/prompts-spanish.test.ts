import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseWav } from "@voxtrail/audio";
import { ActivityRecord, PromptsReport } from "@voxtrail/core";
import type { PromptsJobResult } from "@voxtrail/local";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const workDir = temporaryDirectory("voxtrail-prompts-spanish-");

/** Every activity record under `dir`, parsed. */
async function activityRecords(dir: string): Promise<ActivityRecord[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith(".json"));
  return Promise.all(
    files.map(async (file) =>
      ActivityRecord.parse(JSON.parse(await readFile(join(file.parentPath, file.name), "utf8"))),
    ),
  );
}

describe("voxtrail prompts: a Spanish manifest on the embedded synthesizer", () => {
  it("speaks every row as telephony audio that passes the prompt audio check, with espeak-ng named in lineage", async () => {
    const manifest = join(workDir(), "avisos.csv");
    await writeFile(
      manifest,
      "id,text,language\n" +
        "bienvenida,Gracias por llamar a Acme. Su llamada es importante para nosotros.,es\n" +
        'menu,"Para ventas, marque uno. Para soporte, marque dos.",es-US\n' +
        "welcome,Thanks for calling.,en\n",
    );
    const store = join(workDir(), "store");

    const { code, stdout, stderr } = await runCli(["prompts", manifest, "--store", store, "--json"], {
      VOXTRAIL_SYNTHESIZER: "local",
    });

    expect(code, stderr).toBe(0);
    const result: PromptsJobResult = JSON.parse(stdout);
    const report = PromptsReport.parse(result.report);
    expect(report.totals).toMatchObject({ rows: 3, succeeded: 3, failed: 0, badRows: 0 });
    for (const prompt of report.prompts) {
      const wav = parseWav(await readFile(join(store, prompt.key as string)));
      expect(wav).toMatchObject({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 });
      expect(wav.durationMs).toBeGreaterThan(700);
    }
    const models = (await activityRecords(join(store, "lineage")))
      .filter((record) => record.stage.startsWith("SynthesizePrompt") && record.outcome === "succeeded")
      .map((record) => record.processors[0]?.model);
    expect(models.sort()).toEqual([
      "espeak-ng (es-419) behind Sonic's SageMaker wire format; not Sonic",
      "espeak-ng (es-419) behind Sonic's SageMaker wire format; not Sonic",
      "flite (cmu_us_slt) behind Sonic's SageMaker wire format; not Sonic",
    ]);
  }, 180_000);
});
