import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { createStageHandlers } from "@voxtrail/functions";
import {
  BUNDLED_RECORDS_FILE,
  type ExecutionEvent,
  type ExecutionResult,
  FliteEngine,
  LOCAL_FUNCTION_ARNS,
  LocalStateMachine,
  localDependencies,
  objectCreatedEvent,
  startSonicEndpoint,
} from "@voxtrail/local";
import { buildVoicemailDefinition, keys, STAGE_FUNCTIONS } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Spoken in the voicemail (flite voice rms; pocketsphinx hears every word). */
const VOICEMAIL_CANARY = "the purple elephant plays the violin";
/** Carried by the caller's business record, never spoken. */
const RECORD_CANARY = "marmalade lighthouse quartz";
/** Grace Kim is in the bundled records with phone 555-244-9051: the lookup matches her by it. */
const SCRIPT = `Hi, this is Grace Kim. ${VOICEMAIL_CANARY}. Please call me back at five five five, two four four, nine zero five one.`;

/** What a leak could look like: each phrase, each of its distinctive words, and the words run together. */
function needles(phrase: string): string[] {
  const words = phrase.split(" ").filter((word) => word.length > 4);
  return [phrase, ...words, words.join(""), words.join("_"), words.join("-")];
}
const NEEDLES = [...needles(VOICEMAIL_CANARY), ...needles(RECORD_CANARY)];

/** Every needle found in `text`, case-insensitively and with whitespace and JSON escapes collapsed. */
function hits(text: string): string[] {
  const plain = text.toLowerCase();
  const collapsed = plain.replace(/\\[nrt]|\s+/g, " ");
  return NEEDLES.filter((needle) => plain.includes(needle) || collapsed.includes(needle));
}

let workDir: string;
let storeDir: string;
let jobId: string;
let result: ExecutionResult;
const logLines: string[] = [];
const stateEvents: ExecutionEvent[] = [];

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "voxtrail-canary-"));
  storeDir = join(workDir, "store");
  const recordsFile = join(workDir, "records.jsonl");
  const records = (await readFile(BUNDLED_RECORDS_FILE, "utf8")).split("\n").filter((line) => line.trim());
  await writeFile(
    recordsFile,
    `${records
      .map((line) => {
        const record = JSON.parse(line) as Record<string, unknown>;
        return JSON.stringify(
          record.customerName === "Grace Kim" ? { ...record, note: `gate code: ${RECORD_CANARY}` } : record,
        );
      })
      .join("\n")}\n`,
  );
  const voicemail = await new FliteEngine().synthesizeWav(SCRIPT, "rms");

  // Every log the handlers can write, including each invocation's event.
  process.env.POWERTOOLS_LOG_LEVEL = "DEBUG";
  process.env.POWERTOOLS_LOGGER_LOG_EVENT = "true";
  const endpoint = await startSonicEndpoint();
  const capture = (stream: NodeJS.WriteStream) => {
    const write = stream.write.bind(stream);
    // Kept for the search, not echoed: the test's own output stays readable.
    stream.write = ((chunk: string | Uint8Array) => {
      logLines.push(
        ...String(chunk)
          .split("\n")
          .filter((line) => line.trim()),
      );
      return true;
    }) as typeof stream.write;
    return () => {
      stream.write = write;
    };
  };
  const restoreStdout = capture(process.stdout);
  const restoreStderr = capture(process.stderr);
  try {
    // One execution per job here: no other execution can own it.
    const executions = { isRunning: async () => false };
    const deps = await localDependencies({ storeDir, recordsFile, endpoint, executions });
    const handlers = createStageHandlers(deps);
    const machine = new LocalStateMachine(
      "voxtrail-canary",
      buildVoicemailDefinition({ functionArns: LOCAL_FUNCTION_ARNS }),
      Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [LOCAL_FUNCTION_ARNS[fn], handlers[fn]])),
    );
    const stored = await deps.store.put(keys.incomingVoicemail("grace.wav"), voicemail, {
      contentType: "audio/wav",
    });
    const event = objectCreatedEvent(deps.store.bucket, stored, new Date());
    result = await machine.start(event, { onEvent: (entry) => stateEvents.push(entry) });
    const output = result.status === "SUCCEEDED" ? (result.output as { jobId: string }) : undefined;
    jobId = output?.jobId ?? "";
  } finally {
    restoreStdout();
    restoreStderr();
    delete process.env.POWERTOOLS_LOG_LEVEL;
    delete process.env.POWERTOOLS_LOGGER_LOG_EVENT;
    await endpoint.close();
  }
}, 300_000);

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** Every file of the store, by its path relative to the store. */
async function storeFiles(): Promise<string[]> {
  const entries = await readdir(storeDir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(storeDir, join(entry.parentPath, entry.name)).split(sep).join("/"));
}

/**
 * The artifacts (and the uploaded voicemail) hold caller data by design: the search excepts them,
 * and their kept versions (`.versions/<hash>/<versionId>`, whose sidecar names the key).
 */
async function isArtifact(path: string): Promise<boolean> {
  const versionOf = /^\.versions\/[0-9a-f]+\/[^/]+$/.test(path) && !path.endsWith(".json");
  const key = versionOf
    ? (JSON.parse(await readFile(join(storeDir, `${path}.json`), "utf8")) as { key: string }).key
    : path;
  return key.startsWith(`artifacts/${jobId}/`) || key.startsWith("incoming/");
}

describe("a canary phrase planted in a voicemail and in the caller's record", () => {
  it("runs the job to success, with a log line for every stage invocation", () => {
    expect(result.status).toBe("SUCCEEDED");
    expect(jobId).toMatch(/^vm-/);
    // The capture worked: Powertools logged each stage's event, naming the job.
    expect(logLines.filter((line) => line.includes(jobId)).length).toBeGreaterThanOrEqual(4);
    expect(stateEvents.filter((event) => event.type === "StateExited").length).toBeGreaterThanOrEqual(5);
  });

  it("can be found: the transcript holds the spoken phrase and the record the record's phrase", async () => {
    const transcript = await readFile(join(storeDir, keys.artifact(jobId, "transcript.json")), "utf8");
    const record = await readFile(join(storeDir, keys.artifact(jobId, "record.json")), "utf8");
    expect(hits(transcript)).toEqual(expect.arrayContaining(needles(VOICEMAIL_CANARY).slice(0, 4)));
    expect(hits(record)).toEqual(
      expect.arrayContaining([RECORD_CANARY, "marmalade", "lighthouse", "quartz"]),
    );
  });

  it("is in no log line", () => {
    const leaks = logLines.filter((line) => hits(line).length > 0);
    expect(leaks).toEqual([]);
  });

  it("is in no state payload: no state's input or output, nor the execution's", () => {
    const leaks = stateEvents.filter((event) => hits(JSON.stringify(event)).length > 0);
    expect(leaks).toEqual([]);
  });

  it("is in no report, lineage record, lineage summary, outcome event or other file of the store", async () => {
    const searched: string[] = [];
    for (const path of await storeFiles()) if (!(await isArtifact(path))) searched.push(path);
    expect(searched).toEqual(
      expect.arrayContaining([
        keys.report(jobId),
        keys.lineage(jobId, "Reason", 1),
        keys.lineageSummary(jobId),
        expect.stringMatching(new RegExp(`^events/${jobId}/`)),
      ]),
    );
    const leaks: Array<{ path: string; hits: string[] }> = [];
    for (const path of searched) {
      const found = hits(await readFile(join(storeDir, path), "latin1"));
      if (found.length > 0) leaks.push({ path, hits: found });
    }
    expect(leaks).toEqual([]);
  });
});
