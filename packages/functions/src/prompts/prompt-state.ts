import { ArtifactRef, PromptRow, Timing } from "@voxtrail/core";
import * as z from "zod/mini";
import { CaughtError, IngestInput } from "../state";

/** Input of PreparePrompts: the S3 event of the manifest's arrival, and the execution. */
export const PreparePromptsInput = IngestInput;
export type PreparePromptsInput = z.infer<typeof PreparePromptsInput>;

/** PreparePrompts' output, the state the Map and the report read: pointers and counts only. */
export const PreparedPrompts = z.object({
  jobId: z.string(),
  manifest: ArtifactRef,
  rows: ArtifactRef,
  badRows: ArtifactRef,
  rowCount: z.number().check(z.int(), z.nonnegative()),
  badRowCount: z.number().check(z.int(), z.nonnegative()),
  /** Where the Distributed Map's ItemReader finds rows.jsonl. */
  rowsLocation: z.object({ bucket: z.string(), key: z.string() }),
  /** Where the Distributed Map's ResultWriter writes. */
  mapResultsPrefix: z.string(),
  timings: z.array(Timing),
});
export type PreparedPrompts = z.infer<typeof PreparedPrompts>;

/** One Map item, as the ItemSelector builds it: the job, the rows' pointer, and one row. */
export const SynthesizePromptInput = z.object({ jobId: z.string(), rows: ArtifactRef, row: PromptRow });
export type SynthesizePromptInput = z.infer<typeof SynthesizePromptInput>;

/** Input of RecordPromptFailure: the Map item and what the Catch put at `$.failure`. */
export const RecordPromptFailureInput = z.extend(SynthesizePromptInput, { failure: CaughtError });
export type RecordPromptFailureInput = z.infer<typeof RecordPromptFailureInput>;

/** What a Map item returns: small, since the report reads the result objects instead. */
export interface PromptOutcome {
  id: string;
  status: "succeeded" | "skipped" | "failed";
}

/** Output of WritePromptsReport: the execution's output. */
export interface PromptsReportOutput {
  jobId: string;
  report: ArtifactRef;
  totals: { rows: number; succeeded: number; failed: number; notRun: number; badRows: number };
}
