import { createHash } from "node:crypto";
import {
  type ArtifactRef,
  type BadPromptRow,
  type DuplicateDelivery,
  type EventClock,
  type ManifestRef,
  PromptManifestEmpty,
  type Synthesizer,
} from "@voxtrail/core";
import { promptKeys, promptsJobIdFor, type SourceIdentity } from "@voxtrail/workflow";
import { putArtifact } from "../artifacts";
import { promptsRunEnding } from "../claims/job-claim";
import { openClaimedJob } from "../claims/open-claimed-job";
import { defineStage, type Opening, type StageNeeds } from "../kernel/stage-definition";
import { manifestLines } from "../prompts/manifest-lines";
import { MAX_PROMPT_TEXT_CHARS, manifestTypeOf, PromptRowValidator } from "../prompts/prompt-rows";
import { type PreparedPrompts, PreparePromptsInput } from "../prompts/prompt-state";
import { spokenLanguages } from "../prompts/spoken-languages";
import { unchangedObject } from "../prompts/unchanged-object";

/**
 * What PreparePrompts talks to: the job claims, the default language, and the synthesizer only
 * when the runtime has one anyway (the local runtime), for the languages it declares.
 */
type PreparePromptsDependencies = StageNeeds<"executions" | "language"> & { synthesizer?: Synthesizer };

/** What PreparePrompts works out before its attempt: the manifest, and the two bodies to write. */
interface PreparedBodies {
  jobId: string;
  manifest: ManifestRef;
  rowsBody: Buffer;
  badBody: Buffer;
  rowCount: number;
  badRowCount: number;
}

/**
 * PreparePrompts: first claims the job for this execution, as Ingest claims a voicemail's
 * (`openClaimedJob`: the event must name the stage's bucket; a delivery of a manifest whose job another execution runs, or whose
 * report says every prompt succeeded, returns `{ jobId, duplicate }` and does nothing else; a job
 * whose last run ended with prompts not done runs again as the next run). Then it streams the
 * manifest the event named (its version, or the current object while its etag is the event's)
 * line by line, validates every row, and writes the valid rows as `prompts/<jobId>/rows.jsonl`
 * (what the Map reads) and the bad rows, each with its line number and named reason, as
 * `bad-rows.json`. A bad row never stops the others. When both objects already hold exactly what
 * this run would write (a rerun of the same manifest), nothing is written, not even an activity
 * record. A row in a language the configured synthesizer does not speak (the row's, or `language`
 * for a row without one) is a bad row, `PromptLanguageUnsupported` (see `spokenLanguages`: the
 * synthesizer is not built here). A manifest without a single row, good or bad, is
 * `PromptManifestEmpty`.
 */
export const preparePromptsStage = defineStage<PreparePromptsDependencies>()({
  name: "PreparePrompts",
  input: PreparePromptsInput,
  flows: () => [],
  open: async (
    input,
    { deps, clock },
  ): Promise<Opening<PreparedPrompts | DuplicateDelivery, PreparedBodies>> => {
    const job = await openClaimedJob(input, deps, { jobIdOf: promptsJobIdFor, ending: promptsRunEnding });
    if (!job.claimed) return { jobId: job.jobId, done: job.done };
    const { jobId, identity } = job;
    const bodies = await readManifest(deps, jobId, identity);
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
    if (rows && bad) return { jobId, done: prepared(deps.store.bucket, bodies, rows, bad, clock) };
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
    return prepared(deps.store.bucket, bodies, rows, bad, clock);
  },
});

/**
 * Reads and validates exactly the manifest the event named (its version, or the current object
 * only while its etag is the event's: `ObjectChanged` otherwise), hashing it as it streams.
 * The key is S3's (decoded from an S3 event's form encoding), never `detail.object.key`.
 * `PromptManifestEmpty` when it has no rows.
 */
async function readManifest(
  deps: PreparePromptsDependencies,
  jobId: string,
  identity: SourceIdentity,
): Promise<PreparedBodies> {
  const { key } = identity;
  const named = { versionId: identity.versionId, etag: identity.etag };
  const validator = new PromptRowValidator(manifestTypeOf(key), MAX_PROMPT_TEXT_CHARS, spokenLanguages(deps));
  const hash = createHash("sha256");
  let manifestBytes = 0;
  const body = await deps.store.get(key, named);
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
  if (rowLines.length === 0 && badRows.length === 0) {
    throw new PromptManifestEmpty(
      "the manifest has no prompt rows: add one line per prompt with its id and text (in a CSV, under the header row id,text)",
    );
  }
  const head = await deps.store.head(key, named);
  return {
    jobId,
    manifest: {
      kind: "prompt-manifest",
      uri: deps.store.uri(key),
      key,
      sha256: hash.digest("hex"),
      bytes: manifestBytes,
      contentType: head?.contentType ?? "application/octet-stream",
      // The version read, so that erasing the job removes exactly this upload.
      ...(head?.versionId ? { versionId: head.versionId } : {}),
    },
    rowsBody: Buffer.from(rowLines.join("")),
    badBody: Buffer.from(`${JSON.stringify(badRows, null, 2)}\n`),
    rowCount: rowLines.length,
    badRowCount: badRows.length,
  };
}

/** PreparePrompts' output once rows.jsonl and bad-rows.json hold what the manifest says. */
function prepared(
  bucket: string,
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
    rowsLocation: { bucket, key: promptKeys.rows(jobId) },
    mapResultsPrefix: promptKeys.mapResultsPrefix(jobId),
    timings: [clock.timing("prepare.duration", "handler.start", "rows.durable")],
  };
}
