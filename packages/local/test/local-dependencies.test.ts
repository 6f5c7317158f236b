import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUNDLED_RECORDS_FILE } from "../src/bundled-fixtures";
import { ALL_LOCAL, localDependencies, localSonicSynthesizer } from "../src/local-dependencies";

describe("localDependencies: the transcriber is told the records' number lengths", () => {
  let dir: string;
  // Synthesis is not exercised here: a synthesizer aimed at a port nothing listens on.
  const engines = { synthesizer: localSonicSynthesizer({ url: "http://127.0.0.1:9" }) };
  const executions = { isRunning: async () => false };
  // An S3 client is built, never called: S3 records are read on the first lookup.
  const providerClients = { s3: new S3Client({ region: "us-east-1" }) };
  const model = async (recordsFile: string, providers = ALL_LOCAL) => {
    const storeDir = join(dir, "store");
    const deps = await localDependencies({
      storeDir,
      recordsFile,
      engines,
      executions,
      providers,
      providerClients,
    });
    return deps.transcriber.processor.model;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "voxtrail-local-deps-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  test("the bundled records: order and account numbers of 4 digits", async () => {
    expect(await model(BUNDLED_RECORDS_FILE)).toMatch(/ \+ reference lengths order 4\/account 4$/);
  });

  test("only the kinds whose numbers share one length of digits", async () => {
    const file = join(dir, "records.jsonl");
    const line = (record: object) => JSON.stringify({ customerName: "x", ...record });
    await writeFile(
      file,
      [
        line({ type: "order", id: "o1", orderNumber: "A-12" }),
        line({ type: "account", id: "a1", accountNumber: "123 456" }),
      ].join("\n"),
    );
    expect(await model(file)).toMatch(/ \+ reference lengths account 6$/);
    // One-digit numbers are valid records but no length to refit to: the runtime starts without one.
    const short = join(dir, "short.jsonl");
    await writeFile(short, line({ type: "order", id: "o1", orderNumber: "7" }));
    expect(await model(short)).not.toContain("reference lengths");
  });

  test("records from S3: no local file is read and no length is assumed", async () => {
    const s3 = { ...ALL_LOCAL, records: "s3" as const, recordsUri: "s3://records-bucket/records.jsonl" };
    expect(await model(join(dir, "no-such-records.jsonl"), s3)).not.toContain("reference lengths");
  });
});

describe("localDependencies: the simulated transcriber", () => {
  test("is chosen by name and says it is simulated wherever its processor is recorded", async () => {
    const dir = await mkdtemp(join(tmpdir(), "voxtrail-local-deps-"));
    try {
      const deps = await localDependencies({
        storeDir: join(dir, "store"),
        recordsFile: BUNDLED_RECORDS_FILE,
        engines: { synthesizer: localSonicSynthesizer({ url: "http://127.0.0.1:9" }) },
        executions: { isRunning: async () => false },
        providers: { ...ALL_LOCAL, transcriber: "simulated" },
      });
      expect(deps.transcriber.processor).toMatchObject({
        provider: "simulated",
        boundary: { kind: "local" },
      });
      expect(deps.transcriber.processor.model).toContain("simulated");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
