import {
  BadPromptRows,
  mapLimit,
  type PromptReportEntry,
  type PromptResult,
  PromptRow,
  type PromptsReport,
  readJson,
  round,
} from "@voxtrail/core";
import { promptKeys } from "@voxtrail/workflow";
import { putArtifact } from "../artifacts";
import { defineStage, type KernelDependencies, type Opening } from "../kernel/stage-definition";
import { manifestLines } from "../prompts/manifest-lines";
import { PreparedPrompts, type PromptsReportOutput } from "../prompts/prompt-state";
import { unchangedObject } from "../prompts/unchanged-object";
import { readPromptResult } from "./synthesize-prompt";

/** Result objects read at once. */
const READ_CONCURRENCY = 32;

/** What WritePromptsReport works out before its attempt: the report, its body and its output. */
interface ReportDraft {
  body: Buffer;
  output: Omit<PromptsReportOutput, "report">;
}

/**
 * WritePromptsReport: reads rows.jsonl and each row's result object from the store (not the Map's
 * output, whose shape differs between a Distributed Map and the local inline one) and writes
 * `prompts/<jobId>/report.json`: every prompt in manifest order with its status, audio pointer,
 * duration and ttfb; every bad row with its line and reason; the totals. A row without a result
 * whose row hash matches is `not-run`. An unchanged report is not written again. Like Finalize it
 * ends the job: its lineage summary and note for the lineage index follow its record.
 */
export const writePromptsReportStage = defineStage<KernelDependencies>()({
  name: "WritePromptsReport",
  follows: ["PreparePrompts"],
  // Its record ends the job: the lineage summary the signer signs and the index reads.
  endsJob: true,
  input: PreparedPrompts,
  flows: () => [],
  open: async (input, { deps }): Promise<Opening<PromptsReportOutput, ReportDraft>> => {
    const { jobId } = input;
    const draft = await draftReport(deps, input);
    const unchanged = await unchangedObject(
      deps.store,
      "report",
      promptKeys.report(jobId),
      draft.body,
      "application/json",
    );
    if (unchanged) return { jobId, done: { ...draft.output, report: unchanged } };
    return { jobId, inputs: [input.rows, input.badRows], carry: draft };
  },
  run: async ({ jobId }, { deps, activity }, draft): Promise<PromptsReportOutput> => {
    const report = await putArtifact(
      deps.store,
      "report",
      promptKeys.report(jobId),
      draft.body,
      "application/json",
    );
    activity.outputs.push(report);
    return { ...draft.output, report };
  },
});

/** The report of the job as its rows and result objects stand now. */
async function draftReport(deps: KernelDependencies, input: PreparedPrompts): Promise<ReportDraft> {
  const { jobId } = input;
  const badRows = await readJson(deps.store, input.badRows.key, BadPromptRows);
  const rows: PromptRow[] = [];
  for await (const { bytes } of manifestLines(await deps.store.get(input.rows.key))) {
    if (bytes.byteLength > 0) rows.push(PromptRow.parse(JSON.parse(bytes.toString("utf8"))));
  }
  const prompts = await mapLimit(rows, READ_CONCURRENCY, async (row) =>
    entryOf(row, await readPromptResult(deps, jobId, row.id)),
  );
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
  const { succeeded, failed, notRun } = report.totals;
  return {
    body: Buffer.from(`${JSON.stringify(report, null, 2)}\n`),
    output: {
      jobId,
      totals: { rows: report.totals.rows, succeeded, failed, notRun, badRows: badRows.length },
    },
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
