import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUNDLED_VOICEMAILS_DIR } from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, spawnCli } from "./run-cli";

/** An attempt's temp directory: `<jobId>-<step>-<random>`. */
const ATTEMPT_DIR = /^(vm-[0-9a-f]{20})-([A-Za-z]+)-[^-/]+$/;

let workDir: string;
let store: string;
let childTmp: string;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-e2e-erase-running-"));
  store = join(workDir, "store");
  childTmp = join(workDir, "tmp");
  await mkdir(childTmp);
  await copyFile(join(BUNDLED_VOICEMAILS_DIR, "billing.wav"), join(workDir, "billing.wav"));
});

afterAll(() => rm(workDir, { recursive: true, force: true }));

/** Every file under `dir`, relative to it ([] when it does not exist). */
async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

describe("voxtrail lineage erase while the job's run is still running (issue 39, reproduction 2)", () => {
  it("waits for the run, then erases what it wrote meanwhile: nothing of the job is left, and verify is clean", async () => {
    // The embedded engines, so the job is still transcribing for seconds when the erasure starts.
    const run = spawnCli(["run", "--store", store, join(workDir, "billing.wav")], { TMPDIR: childTmp });
    let jobId: string | undefined;
    while (jobId === undefined && run.child.exitCode === null) {
      const dirs = await readdir(join(childTmp, `voxtrail-${run.child.pid}`)).catch(() => []);
      jobId = dirs.map((dir) => ATTEMPT_DIR.exec(dir)).find((match) => match?.[2] === "Transcribe")?.[1];
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(jobId, `the run ended before its Transcribe attempt began:\n${run.output.stderr}`).toBeDefined();

    const erase = await runCli([
      "lineage",
      "erase",
      "incoming/voicemail/billing.wav",
      "--store",
      store,
      "--json",
    ]);
    expect(erase.stderr).toContain(`erase: waiting for job ${jobId}`);
    expect(erase.code).toBe(0);
    expect(JSON.parse(erase.stdout)).toMatchObject({ jobs: [jobId] });
    // The run had ended before the erasure went on: what it wrote after the erasure began is gone too.
    expect(run.child.exitCode).not.toBeNull();
    expect(await run.exited).toBe(0);

    // No object and no version of anything the job wrote is left (the bodies' versions are kept by
    // key in their sidecars under .versions/).
    const objects = new DirectoryStore({ root: store });
    const own = (key: string) => key.startsWith(`artifacts/${jobId}/`) || key === `reports/${jobId}.json`;
    expect((await objects.list("")).filter(own)).toEqual([]);
    const versioned: string[] = [];
    for (const sidecar of (await filesUnder(join(store, ".versions"))).filter((f) => f.endsWith(".json"))) {
      versioned.push(JSON.parse(await readFile(join(store, ".versions", sidecar), "utf8")).key);
    }
    expect(versioned.filter(own)).toEqual([]);
    expect(versioned).not.toContain("incoming/voicemail/billing.wav");
    const verified = await runCli(["lineage", "verify", "--store", store, "--json"]);
    expect(verified.code, verified.stdout).toBe(0);
    expect(JSON.parse(verified.stdout).erased).toEqual([expect.objectContaining({ jobId })]);
  });
});
