import { createHash } from "node:crypto";
import type { ArtifactRef, BadPromptRow, EventClock } from "@voxtrail/core";
import { promptKeys, promptsJobIdFor, sourceIdentityOf } from "@voxtrail/workflow";
import { putArtifact } from "../artifacts";
import { defineStage, type KernelDependencies, type Opening } from "../kernel/stage-definition";
import { manifestLines } from "../prompts/manifest-lines";
import { MAX_PROMPT_TEXT_CHARS, manifestTypeOf, PromptRowValidator } from "../prompts/prompt-rows";
import { type PreparedPrompts, PreparePromptsInput } from "../prompts/prompt-state";
import { unchangedObject } from "../prompts/unchanged-object";

/** What PreparePrompts works out before its attempt: the manifest, and the two bodies to write. */
interface PreparedBodies {
  jobId: string;
  manifest: ArtifactRef;
  rowsBody: Buffer;
  badBody: Buffer;
  rowCount: number;
  badRowCount: number;
}

/**
 * PreparePrompts: streams the manifest (CSV or JSON Lines) line by line, validates every row, and
 * writes the valid rows as `prompts/<jobId>/rows.jsonl` (what the Map reads) and the bad rows,
 * each with its line number and named reason, as `bad-rows.json`. A bad row never stops the
 * others. When both objects already hold exactly what this run would write (a rerun of the same
 * manifest), nothing is written, not even an activity record.
 */
export const preparePromptsStage = defineStage<KernelDependencies>()({
  name: "PreparePrompts",
  input: PreparePromptsInput,
  flows: () => [],
  open: async (input, { deps, clock }): Promise<Opening<PreparedPrompts, PreparedBodies>> => {
    const identity = sourceIdentityOf(input.event);
    const jobId = promptsJobIdFor(identity);
    const bodies = await readManifest(deps, jobId, identity.key);
    clock.mark("manifest.read");
    const rows = await unchangedObject(
      deps.store,
      "prompt-manifest",
      promptKeys.rows(jobId),
      bodies.rowsBody,
      "application/x-ndjson",
    );
    const bad = await unchangedObject(
      deps.store,
      "report",
      promptKeys.badRows(jobId),
      bodies.badBody,
      "application/json",
    );
    if (rows && bad) return { jobId, done: prepared(deps, bodies, rows, bad, clock) };
    return { jobId, inputs: [bodies.manifest], carry: bodies };
  },
  run: async (_input, { deps, activity, clock }, bodies): Promise<PreparedPrompts> => {
    const { jobId } = bodies;
    const rowsKey = promptKeys.rows(jobId);
    const rows = await putArtifact(
      deps.store,
      "prompt-manifest",
      rowsKey,
      bodies.rowsBody,
      "application/x-ndjson",
    );
    const bad = await putArtifact(
      deps.store,
      "report",
      promptKeys.badRows(jobId),
      bodies.badBody,
      "application/json",
    );
    activity.outputs.push(rows, bad);
    activity.timings.push(clock.timing("prepare.read", "handler.start", "manifest.read"));
    return prepared(deps, bodies, rows, bad, clock);
  },
});

/**
 * Reads and validates the manifest under `key`, hashing it as it streams.
 * The key is S3's (decoded from an S3 event's form encoding), never `detail.object.key`.
 */
async function readManifest(deps: KernelDependencies, jobId: string, key: string): Promise<PreparedBodies> {
  const validator = new PromptRowValidator(manifestTypeOf(key), MAX_PROMPT_TEXT_CHARS);
  const hash = createHash("sha256");
  let manifestBytes = 0;
  const body = await deps.store.get(key);
  async function* hashed() {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      hash.update(chunk);
      manifestBytes += chunk.byteLength;
      yield chunk;
    }
  }
  const rowLines: string[] = [];
  const badRows: BadPromptRow[] = [];
  for await (const line of manifestLines(hashed())) {
    const checked = validator.check(line);
    if (checked?.ok) rowLines.push(`${JSON.stringify(checked.row)}\n`);
    else if (checked) badRows.push(checked.bad);
  }
  const head = await deps.store.head(key);
  return {
    jobId,
    manifest: {
      kind: "prompt-manifest",
      uri: deps.store.uri(key),
      key,
      sha256: hash.digest("hex"),
      bytes: manifestBytes,
      contentType: head?.contentType ?? "application/octet-stream",
    },
    rowsBody: Buffer.from(rowLines.join("")),
    badBody: Buffer.from(`${JSON.stringify(badRows, null, 2)}\n`),
    rowCount: rowLines.length,
    badRowCount: badRows.length,
  };
}

/** PreparePrompts' output once rows.jsonl and bad-rows.json hold what the manifest says. */
function prepared(
  deps: KernelDependencies,
  bodies: PreparedBodies,
  rows: ArtifactRef,
  badRows: ArtifactRef,
  clock: EventClock,
): PreparedPrompts {
  clock.mark("rows.durable");
  const { jobId } = bodies;
  return {
    jobId,
    manifest: bodies.manifest,
    rows,
    badRows,
    rowCount: bodies.rowCount,
    badRowCount: bodies.badRowCount,
    rowsLocation: { bucket: deps.store.bucket, key: promptKeys.rows(jobId) },
    mapResultsPrefix: promptKeys.mapResultsPrefix(jobId),
    timings: [clock.timing("prepare.duration", "handler.start", "rows.durable")],
  };
}
