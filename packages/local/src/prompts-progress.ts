import type { PromptOutcome } from "@voxtrail/functions";

/** Progress of a prompts job, for a progress display. */
export type PromptsProgress =
  | { type: "prepared"; jobId: string; rows: number; badRows: number }
  | { type: "prompt"; outcome: PromptOutcome };
