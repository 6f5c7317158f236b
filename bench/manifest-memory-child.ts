/**
 * One PreparePrompts run in a fresh process, so its peak RSS is its own: the manifest at argv[2]
 * is put into a directory store under `incoming/prompts/`, and the PreparePrompts stage handler
 * (as the local runtime and Lambda run it) reads, checks and prepares it; then one JSON line with
 * the process's peak RSS before the handler and after it, and the rows it prepared. Run by
 * manifest-memory.ts, not by hand.
 */
import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_BOUNDARY, type Processor } from "@voxtrail/core";
import { createPromptHandlers, type PreparedPrompts } from "@voxtrail/functions";
import { BUNDLED_RECORDS_FILE, localDependencies, objectCreatedEvent } from "@voxtrail/local";
import { PROMPTS_INCOMING_PREFIX, SYNTHESIZER_LANGUAGES } from "@voxtrail/workflow";

/** What Lambda would pass as the handler's context. */
const LAMBDA_CONTEXT = {
  functionName: "voxtrail-bench-prepare-prompts",
  awsRequestId: "bench",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:voxtrail-bench-prepare-prompts",
  memoryLimitInMB: "1024",
  functionVersion: "$LATEST",
  getRemainingTimeInMillis: () => 300_000,
} as never;

/** PreparePrompts calls no engine: these only stand in for the ones the other stages would. */
const processor: Processor = { provider: "bench", model: "none", version: "0", boundary: LOCAL_BOUNDARY };
const unused = () => {
  throw new Error("PreparePrompts calls no engine");
};

const [manifest] = process.argv.slice(2);
if (!manifest) throw new Error("usage: manifest-memory-child MANIFEST");
const root = await mkdtemp(join(tmpdir(), "voxtrail-bench-manifest-"));
try {
  const deps = await localDependencies({
    storeDir: root,
    recordsFile: BUNDLED_RECORDS_FILE,
    executions: { isRunning: async () => false },
    engines: {
      transcriber: { processor, transcribe: unused },
      reasoner: { processor, reason: unused },
      synthesizer: { processor, languages: SYNTHESIZER_LANGUAGES.local, synthesize: unused },
    },
  });
  const stored = await deps.store.put(`${PROMPTS_INCOMING_PREFIX}bench.csv`, createReadStream(manifest), {
    contentType: "text/csv",
  });
  const maxRssKbBefore = process.resourceUsage().maxRSS;
  const started = performance.now();
  const execution = {
    id: `arn:aws:states:local:000000000000:execution:voxtrail-prompts:${process.pid}-bench`,
    startTime: new Date().toISOString(),
  };
  const event = objectCreatedEvent(deps.store.bucket, stored, new Date());
  const prepared = (await createPromptHandlers(deps).preparePrompts(
    { event, execution },
    LAMBDA_CONTEXT,
  )) as PreparedPrompts;
  const ms = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ maxRssKbBefore, maxRssKb: process.resourceUsage().maxRSS, ms, rows: prepared.rowCount, badRows: prepared.badRowCount })}\n`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
