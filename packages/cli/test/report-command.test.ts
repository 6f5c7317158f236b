import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LatencyReport } from "@voxtrail/report";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runCli } from "../../../test/e2e/run-cli";
import { storeJobs, usualJob } from "../../report/test/synthetic-jobs";

// `voxtrail report` as a user runs it, over a store laid out as the pipeline writes it.

let work: string;
let store: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "voxtrail-report-cli-"));
  store = join(work, "store");
  await storeJobs(
    new DirectoryStore({ root: store }),
    Array.from({ length: 4 }, (_, i) => usualJob(i, 900 + i * 100)),
  );
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("voxtrail report", () => {
  test("--all prints percentiles per stage, the slowest jobs and the conditions", async () => {
    const { code, stdout } = await runCli(["report", "--all", "--store", store]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^4 job\(s\): 4 succeeded, 0 failed, 0 unfinished; percentiles by nearest-rank/);
    expect(stdout).toMatch(
      /Transcribe\s+transcribe\.duration\s+handler\.start -> durable\s+4\s+1\.00 s\s+1\.20 s\s+1\.20 s\s+1\.20 s/,
    );
    expect(stdout).toContain("job-003  succeeded");
    expect(stdout).toContain(
      "Transcribe (4): pocketsphinx pocketsphinx-model 1.2; input 96.0 kB, jobs in flight 1–3",
    );
  });

  test("--json prints the report; --html writes the page", async () => {
    const html = join(work, "report.html");
    const { code, stdout, stderr } = await runCli(["report", "--store", store, "--json", "--html", html]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as LatencyReport;
    expect(report.jobs.total).toBe(4);
    expect(report.slowest[0]?.jobId).toBe("job-003");
    expect(stderr).toContain(`wrote ${html}`);
    const page = await readFile(html, "utf8");
    expect(page).toContain('<table id="percentiles">');
    expect(page).toContain("Lineage of <code>job-003</code>");
  });

  test("--job reports one job", async () => {
    const { code, stdout } = await runCli(["report", "--job", "job-001", "--store", store, "--json"]);
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as LatencyReport).timelines.map((t) => t.jobId)).toEqual(["job-001"]);
  });

  test("--cost prices the Sonic endpoint the stage file deploys and states its floor a day", async () => {
    const production = await runCli(["report", "--cost", "--store", store]);
    expect(production.code).toBe(0);
    expect(production.stdout).toContain(
      "Sonic endpoint floor: 2 x ml.g6e.xlarge x 24 h = 48 instance-hours a day (no confirmed price)",
    );
    expect(production.stdout).not.toContain("ml.g5.xlarge");
    const dev = await runCli(["report", "--cost", "--stage", "dev", "--store", store]);
    expect(dev.code).toBe(0);
    expect(dev.stderr).toContain("stage dev (config/stages/dev.json) uses an existing Sonic endpoint");
    expect(dev.stdout).not.toContain("Sonic endpoint floor");
    const alone = await runCli(["report", "--stage", "dev", "--store", store]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--stage goes with --cost");
  });

  test("mistakes are usage errors; an empty selection exits 1", async () => {
    const both = await runCli(["report", "--job", "job-001", "--all", "--store", store]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("give --job ID or --all, not both");
    const missing = await runCli(["report", "--store", join(work, "nowhere")]);
    expect(missing.code).toBe(2);
    const unknown = await runCli(["report", "--job", "job-999", "--store", store]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no job job-999");
  });
});
