/**
 * The states a voicemail execution enters when every stage succeeds, in order: the stage Tasks
 * and the duplicate check after Ingest (what the local engine runs and the cost report counts).
 */
export const SUCCEEDED_VOICEMAIL_STATES = [
  "Ingest",
  "IsDuplicate",
  "Transcribe",
  "Reason",
  "Synthesize",
  "Finalize",
] as const;
