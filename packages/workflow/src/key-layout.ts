/**
 * The S3 key layout (docs/architecture.md, "The key layout"): where audio lands, where each job's artifacts,
 * lineage records and report go. Built once here; handlers, the local runtime and the stacks
 * all use it.
 */

/** Prefix under which a voicemail's arrival starts the voicemail workflow. */
export const VOICEMAIL_INCOMING_PREFIX = "incoming/voicemail/";

/** Prefix under which a manifest of voicemail keys (CSV, column `key`) starts a voicemail batch. */
export const BATCH_INCOMING_PREFIX = "incoming/batches/";

/** The artifacts a voicemail job writes, by file name. */
export const ARTIFACT_FILES = {
  normalizedAudio: "normalized.wav",
  transcript: "transcript.json",
  record: "record.json",
  replyText: "reply.txt",
  replyAudio: "reply.wav",
} as const;
export type ArtifactFile = (typeof ARTIFACT_FILES)[keyof typeof ARTIFACT_FILES];

/** Key layout helpers. */
export const keys = {
  /** Where an uploaded voicemail named `name` lands. */
  incomingVoicemail: (name: string) => `${VOICEMAIL_INCOMING_PREFIX}${name}`,
  /** One artifact of a job. */
  artifact: (jobId: string, file: ArtifactFile) => `artifacts/${jobId}/${file}`,
  /** Prefix of a job's activity records. */
  lineagePrefix: (jobId: string) => `lineage/${jobId}/`,
  /** One activity record: one per stage attempt. */
  lineage: (jobId: string, stage: string, attempt: number) =>
    `lineage/${jobId}/${stage.toLowerCase()}-${String(attempt).padStart(2, "0")}.json`,
  /** Prefix of the jobs' lineage summaries. */
  lineageSummaries: "lineage-summaries/",
  /** A job's lineage summary: a copy of its activity records, written when the job ends. */
  lineageSummary: (jobId: string) => `lineage-summaries/${jobId}.json`,
  /** Prefix of a job's claims: one per run, created only if absent. */
  claimPrefix: (jobId: string) => `claims/${jobId}/`,
  /** The claim of a job's `run`-th run. */
  claim: (jobId: string, run: number) => `claims/${jobId}/run-${String(run).padStart(2, "0")}.json`,
  /** A job's report. */
  report: (jobId: string) => `reports/${jobId}.json`,
  /** An outcome event the local runtime keeps instead of sending it to an event bus. */
  event: (jobId: string, eventId: string) => `events/${jobId}/${eventId}.json`,
};
