import { createHash } from "node:crypto";
import { type ArtifactRef, type BadPromptRow, EventClock } from "@voxtrail/core";
import { promptKeys, promptsJobIdFor, sourceIdentityOf } from "@voxtrail/workflow";
import { putArtifact } from "../artifacts";
import { withActivity } from "../lineage/activity";
import { enforceBoundaries } from "../lineage/boundary-check";
import { manifestLines } from "../prompts/manifest-lines";
import type { PromptDependencies } from "../prompts/prompt-dependencies";
import { MAX_PROMPT_TEXT_CHARS, manifestTypeOf, PromptRowValidator } from "../prompts/prompt-rows";
import type { PreparedPrompts, PreparePromptsInput } from "../prompts/prompt-state";
import { unchangedObject } from "../prompts/unchanged-object";

/**
 * PreparePrompts: streams the manifest (CSV or JSON Lines) line by line, validates every row, and
 * writes the valid rows as `prompts/<jobId>/rows.jsonl` (what the Map reads) and the bad rows,
 * each with its line number and named reason, as `bad-rows.json`. A bad row never stops the
 * others. When both objects already hold exactly what this run would write (a rerun of the same
 * manifest), nothing is written, not even an activity record.
 */
export async function preparePrompts(
  deps: PromptDependencies,
  input: PreparePromptsInput,
): Promise<PreparedPrompts> {
  const clock = new EventClock();
  clock.mark("handler.start");
  const identity = sourceIdentityOf(input.event);
  // The key as S3's API takes it (decoded from an S3 event's form encoding), never `detail.object.key`.
  const { key } = identity;
  const jobId = promptsJobIdFor(identity);
  deps.logger.appendKeys({ jobId });
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
  clock.mark("manifest.read");
  const head = await deps.store.head(key);
  const manifest: ArtifactRef = {
    kind: "prompt-manifest",
    uri: deps.store.uri(key),
    key,
    sha256: hash.digest("hex"),
    bytes: manifestBytes,
    contentType: head?.contentType ?? "application/octet-stream",
  };
  const rowsBody = Buffer.from(rowLines.join(""));
  const badBody = Buffer.from(`${JSON.stringify(badRows, null, 2)}\n`);
  const rowsKey = promptKeys.rows(jobId);
  let rows = await unchangedObject(deps.store, "prompt-manifest", rowsKey, rowsBody, "application/x-ndjson");
  let bad = await unchangedObject(
    deps.store,
    "report",
    promptKeys.badRows(jobId),
    badBody,
    "application/json",
  );
  if (!rows || !bad) {
    ({ rows, bad } = await withActivity(
      {
        store: deps.store,
        jobId,
        stage: "PreparePrompts",
        compute: deps.compute,
        inputs: [manifest],
        now: deps.now ?? (() => new Date()),
        jobsInFlight: deps.jobsInFlight,
        metrics: deps.metrics,
      },
      async (activity) => {
        enforceBoundaries(deps, activity, "PreparePrompts", []);
        const written = {
          rows: await putArtifact(deps.store, "prompt-manifest", rowsKey, rowsBody, "application/x-ndjson"),
          bad: await putArtifact(
            deps.store,
            "report",
            promptKeys.badRows(jobId),
            badBody,
            "application/json",
          ),
        };
        activity.outputs.push(written.rows, written.bad);
        activity.timings.push(clock.timing("prepare.read", "handler.start", "manifest.read"));
        return written;
      },
    ));
  }
  clock.mark("rows.durable");
  return {
    jobId,
    manifest,
    rows,
    badRows: bad,
    rowCount: rowLines.length,
    badRowCount: badRows.length,
    rowsLocation: { bucket: deps.store.bucket, key: rowsKey },
    mapResultsPrefix: promptKeys.mapResultsPrefix(jobId),
    timings: [clock.timing("prepare.duration", "handler.start", "rows.durable")],
  };
}
