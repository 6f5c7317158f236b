import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeMono16, encodeMuLaw, resample, writeWav } from "@voxtrail/audio";
import { ActivityRecord, Transcript } from "@voxtrail/core";
import { FliteEngine, type JobResult } from "@voxtrail/local";
import { keys } from "@voxtrail/workflow";
import { beforeAll, describe, expect, it } from "vitest";
import { openLineageValidator } from "../support/openlineage-schema";
import { temporaryDirectory } from "../support/temporary-directory";
import { runCli } from "./run-cli";

const workDir = temporaryDirectory("voxtrail-amazon-transcribe-");
/** The store the run writes. */
const store = () => join(workDir(), "store");
let result: JobResult;
let code: number;

beforeAll(async () => {
  const inputs = join(workDir(), "inputs");
  await mkdir(inputs);
  // A voicemail the project has never seen, as a phone line delivers it: 8 kHz mu-law, another voice.
  const speech = decodeMono16(
    await new FliteEngine().synthesizeWav(
      "Hi, this is Dana. I am calling about order number two seven four one. It arrived damaged. Please call me back.",
      "rms",
    ),
  );
  await writeFile(
    join(inputs, "Voicemail 0042 (mobile).wav"),
    writeWav(
      { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
      encodeMuLaw(resample(speech.samples, speech.sampleRate, 8000)),
    ),
  );
  const run = await runCli([
    "run",
    join(inputs, "Voicemail 0042 (mobile).wav"),
    "--transcriber",
    "amazon-transcribe",
    "--store",
    store(),
    "--json",
  ]);
  code = run.code;
  result = (JSON.parse(run.stdout) as JobResult[])[0] as JobResult;
}, 300_000);

const lineage = (...args: string[]) => runCli(["lineage", ...args, "--store", store()]);

describe("voxtrail run --transcriber amazon-transcribe, through the local Transcribe stand-in", () => {
  it("succeeds, with Transcribe's output document and the transcript read from it", async () => {
    expect(code).toBe(0);
    expect(result.status).toBe("SUCCEEDED");
    const output = JSON.parse(
      await readFile(join(store(), keys.artifact(result.jobId, "transcribe-output.json")), "utf8"),
    );
    expect(output).toMatchObject({
      jobName: `voxtrail-${result.jobId}-run-1`,
      status: "COMPLETED",
      results: { transcripts: [{ transcript: expect.any(String) }] },
    });
    const transcript = Transcript.parse(
      JSON.parse(await readFile(join(store(), keys.artifact(result.jobId, "transcript.json")), "utf8")),
    );
    expect(transcript.words.length).toBeGreaterThan(5);
    expect(transcript.processor).toMatchObject({ provider: "amazon-transcribe" });
  });

  it("records one Transcribe activity naming transcribe@region in the account boundary, the job and both S3 locations", async () => {
    const record = ActivityRecord.parse(
      JSON.parse(await readFile(join(store(), keys.lineage(result.jobId, "Transcribe", 1)), "utf8")),
    );
    expect(record).toMatchObject({
      outcome: "succeeded",
      processors: [
        {
          provider: "amazon-transcribe",
          model: expect.stringMatching(/local stand-in\); not Amazon Transcribe$/),
          endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
          boundary: { kind: "aws-account", service: "transcribe", region: "us-east-1" },
        },
      ],
      serviceJob: {
        name: `voxtrail-${result.jobId}-run-1`,
        input: `s3://voxtrail-local/${keys.artifact(result.jobId, "normalized.wav")}`,
        output: `s3://voxtrail-local/${keys.artifact(result.jobId, "transcribe-output.json")}`,
      },
      policy: { outcome: "allowed" },
    });
    const boundaries = await lineage("boundaries");
    expect(boundaries.stdout).toMatch(
      /normalized-audio\s+aws-account:transcribe@us-east-1\s+amazon-transcribe\s+-\s+1\s/,
    );
  });

  it("verifies clean, traces the reply back through Transcribe's output, and exports valid OpenLineage", async () => {
    const verify = await lineage("verify");
    expect(verify.code).toBe(0);
    const traced = await lineage("trace", keys.artifact(result.jobId, "transcript.json"));
    expect(traced.stdout).toMatch(/amazon-transcribe/);
    const exported = await lineage("export", "--format", "openlineage");
    expect(exported.code).toBe(0);
    const validate = await openLineageValidator();
    const events = exported.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
  });
});
