import { execFileSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ActivityRecord, BusinessRecord, JobReport, VoicemailRecord } from "@voxtrail/core";
import { BUNDLED_RECORDS_FILE, BUNDLED_VOICEMAILS_DIR, type JobResult } from "@voxtrail/local";
import { keys } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BAD_FIXTURES_DIR, smallBadEntries } from "../../scripts/make-bad-fixtures";
import { runCli } from "../e2e/run-cli";
import { writeGeneratedEntries } from "./generated-entries";

/** How an entry must come out: failed in Ingest with this InvalidAudio message, or a correct result. */
type Handling = { failsWith: string } | { succeeds: (record: VoicemailRecord) => void | Promise<void> };

const UNSUPPORTED = "(supported: 16-bit PCM, 32-bit float, 8-bit mu-law and A-law)";

/** Every corpus entry (fixtures/bad/ and the generated ones) and how it must be handled. */
const CORPUS: Record<string, Handling> = {
  "empty.wav": { failsWith: "the audio file is empty (0 bytes)" },
  "zero-length-data.wav": {
    failsWith: "the WAV file contains no audio samples (its data chunk is empty)",
  },
  "truncated-header.wav": {
    failsWith: "truncated: the fmt chunk declares 18 bytes but only 10 are present",
  },
  "wrong-magic.wav": { failsWith: "not a WAV file: expected a RIFF/WAVE header" },
  "huge-declared-size.wav": {
    failsWith: "truncated: the data chunk declares 4294967280 bytes but only 800 are present",
  },
  "pcm-8bit.wav": { failsWith: `8-bit PCM is not supported ${UNSUPPORTED}` },
  "over-length-limit.wav": { failsWith: "the audio is 601 s long, longer than the limit of 600 s" },
  // damaged-order.wav as 48 kHz stereo float: heard as well as the original.
  "stereo-48k-float.wav": {
    succeeds: (record) => {
      expect(record.intent).toBe("order-problem");
      expect(record.entities.orderNumber).toBe("4271");
      expect(record.match).toMatchObject({ outcome: "found", record: { id: "ord-4271" } });
    },
  },
  // billing.wav as 8 kHz A-law.
  "alaw-8k.wav": {
    succeeds: (record) => {
      expect(record.intent).toBe("billing");
      expect(record.match).toMatchObject({ outcome: "found", record: { id: "acct-8153" } });
    },
  },
  "silence.wav": {
    succeeds: (record) => {
      expect(record.intent).toBe("no-message");
      expect(record.match.outcome).toBe("not-found");
    },
  },
  "keys/two..dots..wav": { succeeds: () => undefined },
  "keys/with  spaces .wav": { succeeds: () => undefined },
  "keys/ünïcødé 日本語 ☎.wav": { succeeds: () => undefined },
  "prompt-injection.wav": {
    succeeds: async (record) => {
      // The words are data: the outcome is Maria's damaged order, nothing the caller "instructed".
      expect(record.intent).toBe("order-problem");
      expect(record.entities).toMatchObject({ orderNumber: "4271", callbackNumber: "5551234567" });
      expect(record.match).toMatchObject({ outcome: "found", record: { id: "ord-4271" } });
      expect(record.replyText).toBe(
        "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; a replacement is on its way.",
      );
      // No other customer's record shows anywhere in what the reasoner wrote.
      const written = JSON.stringify(record).toLowerCase();
      for (const other of await otherCustomersRecords("Maria Lopez")) {
        for (const value of [
          other.id,
          other.customerName,
          other.orderNumber,
          other.accountNumber,
          other.phone,
        ]) {
          if (value) expect(written).not.toContain(value.toLowerCase());
        }
      }
    },
  },
};

const GOOD_VOICEMAIL = "damaged-order.wav";

/** A FIFO named on the command line, like a voicemail: refused alone, never read (it would block). */
const FIFO = "pipe.wav";

/**
 * Copies of the good voicemail under names no store takes: each fails alone when it is uploaded,
 * with a cause that names the rule and says what to do, and the rest of the batch runs on. `onDisk`
 * is the name's bytes (a name that is not UTF-8 reaches the walk with U+FFFD in its place).
 */
const BAD_NAMES: Array<{ name: string; onDisk?: Buffer; cause: string }> = [
  {
    name: "bad\nname.wav",
    cause: "InvalidKey: object key must not contain NUL or other control characters; rename the file",
  },
  { name: "back\\slash.wav", cause: "InvalidKey: object key must not contain a backslash; rename the file" },
  {
    name: `${"a".repeat(247)}.wav`,
    cause: "InvalidKey: directory store key segments must be at most 250 bytes of UTF-8; rename the file",
  },
  {
    name: "latin1-\uFFFD.wav",
    onDisk: Buffer.from("latin1-\xff.wav", "latin1"),
    cause:
      "InputNameNotUtf8: the file's name is not valid UTF-8, so it cannot be read by name or stored under it; rename the file",
  },
];

async function otherCustomersRecords(customerName: string): Promise<BusinessRecord[]> {
  const lines = (await readFile(BUNDLED_RECORDS_FILE, "utf8")).split("\n").filter((line) => line.trim());
  return lines
    .map((line) => BusinessRecord.parse(JSON.parse(line)))
    .filter((record) => record.customerName !== customerName);
}

let workDir: string;
let store: string;
let run: { code: number; stdout: string; stderr: string };
let results: Map<string, JobResult>;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-hostile-"));
  const batch = join(workDir, "batch");
  store = join(workDir, "store");
  await mkdir(batch);
  for (const name of Object.keys(smallBadEntries())) {
    await mkdir(dirname(join(batch, name)), { recursive: true });
    await copyFile(join(BAD_FIXTURES_DIR, name), join(batch, name));
  }
  await writeGeneratedEntries(batch);
  for (const { name, onDisk } of BAD_NAMES) {
    const path = onDisk ? Buffer.concat([Buffer.from(`${batch}/`), onDisk]) : join(batch, name);
    await copyFile(join(BUNDLED_VOICEMAILS_DIR, GOOD_VOICEMAIL), path);
  }
  execFileSync("mkfifo", [join(workDir, FIFO)]);
  run = await runCli([
    "run",
    batch,
    join(BUNDLED_VOICEMAILS_DIR, GOOD_VOICEMAIL),
    join(workDir, FIFO),
    "--store",
    store,
    "--json",
    "--concurrency",
    "2",
  ]);
  // The batch directory's files are named `batch/<entry>` (their path from its parent).
  results = new Map(
    (JSON.parse(run.stdout) as JobResult[]).map((result) => [
      result.file.name.replace(/^batch\//, ""),
      result,
    ]),
  );
}, 600_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

async function json(key: string): Promise<unknown> {
  return JSON.parse(await readFile(join(store, key), "utf8"));
}

async function outcomeEvents(jobId: string): Promise<Array<{ detail: Record<string, unknown> }>> {
  const dir = join(store, "events", jobId);
  return Promise.all((await readdir(dir)).map((name) => json(`events/${jobId}/${name}`))) as never;
}

describe("a batch of hostile voicemails and one good one, run together by `voxtrail run`", () => {
  it("gives every file of the batch exactly one result: nothing is lost", () => {
    expect([...results.keys()].sort()).toEqual(
      [...Object.keys(CORPUS), GOOD_VOICEMAIL, FIFO, ...BAD_NAMES.map((entry) => entry.name)].sort(),
    );
    expect(run.code).toBe(1);
  });

  it("processes the good voicemail as if it were alone", async () => {
    const result = results.get(GOOD_VOICEMAIL);
    expect(result?.status).toBe("SUCCEEDED");
    const record = VoicemailRecord.parse(await json(keys.artifact(result?.jobId as string, "record.json")));
    expect(record.match).toMatchObject({ outcome: "found", record: { id: "ord-4271" } });
  });

  it("shows the user no stack trace, on stdout or stderr", () => {
    expect(run.stderr).toContain("20 job(s): 8 succeeded, 12 failed");
    expect(run.stdout).not.toMatch(/\n\s+at /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  describe.each(Object.entries(CORPUS))("%s", (entry, handling) => {
    it("is handled: a named error in Ingest, or a correct result", async () => {
      const result = results.get(entry) as JobResult;
      const report = JobReport.parse(result.report);
      expect(report.source.key).toBe(keys.incomingVoicemail(`batch/${entry}`));
      const [event] = await outcomeEvents(result.jobId);
      if ("failsWith" in handling) {
        expect(result.status).toBe("FAILED");
        expect(result.error).toEqual({ error: "IngestFailed", cause: `InvalidAudio: ${handling.failsWith}` });
        expect(report.failure).toEqual({
          stage: "Ingest",
          error: { name: "InvalidAudio", message: handling.failsWith },
        });
        expect(event?.detail).toMatchObject({
          outcome: "failed",
          failedStage: "Ingest",
          errorName: "InvalidAudio",
        });
        const attempt = ActivityRecord.parse(await json(keys.lineage(result.jobId, "Ingest", 1)));
        expect(attempt).toMatchObject({ outcome: "failed", outputs: [], error: { name: "InvalidAudio" } });
      } else {
        expect(result.status).toBe("SUCCEEDED");
        expect(report.outcome).toBe("succeeded");
        expect(event?.detail).toMatchObject({ outcome: "succeeded" });
        expect(report.artifacts.map((artifact) => artifact.kind)).toEqual(
          expect.arrayContaining(["transcript", "record", "reply-text", "reply-audio"]),
        );
        await handling.succeeds(
          VoicemailRecord.parse(await json(keys.artifact(result.jobId, "record.json"))),
        );
      }
    });
  });

  describe.each(BAD_NAMES)("a file named $name (JSON-quoted)", ({ name, cause }) => {
    it("fails alone at its upload, saying why and what to do, and starts no job", () => {
      expect(results.get(name)).toMatchObject({
        status: "FAILED",
        jobId: "-",
        error: { error: "UploadFailed", cause },
      });
      // Its line shows a name with control characters quoted, so one file is one line.
      expect(run.stderr).toContain(
        `FAIL ${/\p{Cc}/u.test(name) ? JSON.stringify(`batch/${name}`) : `batch/${name}`}  -  UploadFailed`,
      );
    });
  });

  it("refuses a FIFO named on the command line alone, without blocking on it", () => {
    expect(results.get(FIFO)).toMatchObject({
      status: "FAILED",
      jobId: "-",
      error: {
        error: "UploadFailed",
        cause:
          "InputNotRegularFile: not a regular file (a FIFO, socket or device); name voicemail files or directories",
      },
    });
  });
});
