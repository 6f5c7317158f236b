import {
  BadPromptRow,
  type PromptReportEntry,
  type PromptResult,
  PromptRow,
  type PromptsReport,
  round,
} from "@voxtrail/core";
import { promptKeys } from "@voxtrail/workflow";
import { z } from "zod";
import { putArtifact } from "../artifacts";
import { withActivity } from "../lineage/activity";
import { manifestLines } from "../prompts/manifest-lines";
import type { PromptDependencies } from "../prompts/prompt-dependencies";
import type { PreparedPrompts, PromptsReportOutput } from "../prompts/prompt-state";
import { unchangedObject } from "../prompts/unchanged-object";
import { readPromptResult } from "./synthesize-prompt";

/** Result objects read at once. */
const READ_CONCURRENCY = 32;

/**
 * WritePromptsReport: reads rows.jsonl and each row's result object from the store (not the Map's
 * output, whose shape differs between a Distributed Map and the local inline one) and writes
 * `prompts/<jobId>/report.json`: every prompt in manifest order with its status, audio pointer,
 * duration and ttfb; every bad row with its line and reason; the totals. A row without a result
 * whose row hash matches is `not-run`. An unchanged report is not written again.
 */
export async function writePromptsReport(
  deps: PromptDependencies,
  input: PreparedPrompts,
): Promise<PromptsReportOutput> {
  const { jobId } = input;
  deps.logger.appendKeys({ jobId });
  const badRows = z
    .array(BadPromptRow)
    .parse(JSON.parse((await deps.store.getBytes(input.badRows.key)).toString("utf8")));
  const rows: PromptRow[] = [];
  for await (const { bytes } of manifestLines(await deps.store.get(input.rows.key))) {
    if (bytes.byteLength > 0) rows.push(PromptRow.parse(JSON.parse(bytes.toString("utf8"))));
  }
  const prompts = new Array<PromptReportEntry>(rows.length);
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const index = next++;
      const row = rows[index] as PromptRow;
      prompts[index] = entryOf(row, await readPromptResult(deps, jobId, row.id));
    }
  };
  await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
  const count = (status: PromptReportEntry["status"]) => prompts.filter((p) => p.status === status).length;
  const report: PromptsReport = {
    schemaVersion: 1,
    jobId,
    manifest: input.manifest,
    totals: {
      rows: rows.length + badRows.length,
      succeeded: count("succeeded"),
      failed: count("failed"),
      notRun: count("not-run"),
      badRows: badRows.length,
      audioBytes: prompts.reduce((sum, p) => sum + (p.bytes ?? 0), 0),
      audioMs: round(prompts.reduce((sum, p) => sum + (p.audioMs ?? 0), 0)),
    },
    prompts,
    badRows,
  };
  const body = Buffer.from(`${JSON.stringify(report, null, 2)}\n`);
  const key = promptKeys.report(jobId);
  const ref =
    (await unchangedObject(deps.store, "report", key, body, "application/json")) ??
    (await withActivity(
      {
        store: deps.store,
        jobId,
        stage: "WritePromptsReport",
        compute: deps.compute,
        inputs: [input.rows, input.badRows],
        now: deps.now ?? (() => new Date()),
        jobsInFlight: deps.jobsInFlight,
        metrics: deps.metrics,
      },
      async (activity) => {
        const written = await putArtifact(deps.store, "report", key, body, "application/json");
        activity.outputs.push(written);
        return written;
      },
    ));
  const { succeeded, failed, notRun } = report.totals;
  return {
    jobId,
    report: ref,
    totals: { rows: report.totals.rows, succeeded, failed, notRun, badRows: badRows.length },
  };
}

function entryOf(row: PromptRow, result: PromptResult | undefined): PromptReportEntry {
  const base = { id: row.id, line: row.line };
  if (!result || result.rowHash !== row.rowHash) return { ...base, status: "not-run" };
  if (result.status === "failed") {
    return { ...base, status: "failed", ...(result.error ? { error: result.error } : {}) };
  }
  return {
    ...base,
    status: "succeeded",
    ...(result.audio
      ? { key: result.audio.key, bytes: result.audio.bytes, sha256: result.audio.sha256 }
      : {}),
    ...(result.audioMs === undefined ? {} : { audioMs: result.audioMs }),
    ...(result.ttfbMs === undefined ? {} : { ttfbMs: result.ttfbMs }),
  };
}
