import type { DuplicateDelivery, JobReport } from "@voxtrail/core";
import type { InputFile } from "./input-files";
import type { WorkflowJobResult } from "./workflow-runtime";

/** How one uploaded file's job ended. */
export interface JobResult extends Omit<WorkflowJobResult<JobReport>, "status"> {
  file: InputFile;
  /** `DUPLICATE`: another execution owns the job (it is done, or running); this one did nothing. */
  status: WorkflowJobResult<JobReport>["status"] | "DUPLICATE";
  /** Which execution owns the job, and why this delivery was a duplicate. */
  duplicate?: DuplicateDelivery["duplicate"];
  /**
   * The state whose error ended a failed execution, when that was not one of its Fail states:
   * e.g. `RecordIngestFailure` when even the failure of Ingest could not be recorded (a full disk).
   */
  failedState?: string;
}
