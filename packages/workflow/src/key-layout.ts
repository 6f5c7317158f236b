/**
 * The S3 key layout (docs/architecture.md, "The key layout"): where audio lands, where each job's artifacts,
 * lineage records and report go. Built once here; handlers, the local runtime and the stacks
 * all use it.
 */

/**
 * The bucket's top-level folders: what IAM patterns, lifecycle rules and whole-store reads that
 * cover every job are written over. Every key below is built from one of these.
 */
export const KEY_FOLDERS = {
  incoming: "incoming/",
  artifacts: "artifacts/",
  lineage: "lineage/",
  lineageSummaries: "lineage-summaries/",
  claims: "claims/",
  reports: "reports/",
  events: "events/",
  erasures: "erasures/",
  lineageDigests: "lineage-digests/",
  /** Digests a chain repair took out of the chain, kept as they were under the repair's id. */
  lineageDigestRepairs: "lineage-digest-repairs/",
  /** The lineage edge index: derived from the summaries, rebuilt from the records at will. */
  lineageIndex: "lineage-index/",
  /** The task tokens of workflows waiting for a transcription job's end: no caller data. */
  transcriptionWaits: "transcription-waits/",
  /** The CLI's runs in progress on a directory store (never in a stage's bucket): no caller data. */
  localRuns: "local-runs/",
} as const;

/** Prefix under which a voicemail's arrival starts the voicemail workflow. */
export const VOICEMAIL_INCOMING_PREFIX = `${KEY_FOLDERS.incoming}voicemail/` as const;

/** Prefix under which a manifest of voicemail keys (CSV, column `key`) starts a voicemail batch. */
export const BATCH_INCOMING_PREFIX = `${KEY_FOLDERS.incoming}batches/` as const;

/** The artifacts a voicemail job writes, by file name. */
export const ARTIFACT_FILES = {
  normalizedAudio: "normalized.wav",
  transcript: "transcript.json",
  /** Amazon Transcribe's output document, written by the service (the key ends in .json: exact). */
  transcribeOutput: "transcribe-output.json",
  record: "record.json",
  replyText: "reply.txt",
  replyAudio: "reply.wav",
} as const;
export type ArtifactFile = (typeof ARTIFACT_FILES)[keyof typeof ARTIFACT_FILES];

/**
 * The audit trail, and only it: activity records, lineage summaries, signed digests and erasure
 * records. Where a stage configures Object Lock, every object written under these prefixes gets
 * its own retention; caller data (the voicemail, its artifacts) never does, so an erasure request
 * can always be honoured.
 */
export const RETAINED_PREFIXES: readonly string[] = [
  KEY_FOLDERS.lineage,
  KEY_FOLDERS.lineageSummaries,
  KEY_FOLDERS.lineageDigests,
  KEY_FOLDERS.erasures,
];

/** Key layout helpers. */
export const keys = {
  /** Where an uploaded voicemail named `name` lands. */
  incomingVoicemail: (name: string) => `${VOICEMAIL_INCOMING_PREFIX}${name}`,
  /** Prefix of a job's artifacts. */
  artifactPrefix: (jobId: string) => `${KEY_FOLDERS.artifacts}${jobId}/`,
  /** One artifact of a job. */
  artifact: (jobId: string, file: ArtifactFile) => `${KEY_FOLDERS.artifacts}${jobId}/${file}`,
  /** Prefix of a job's activity records. */
  lineagePrefix: (jobId: string) => `${KEY_FOLDERS.lineage}${jobId}/`,
  /** One activity record: one per stage attempt. */
  lineage: (jobId: string, stage: string, attempt: number) =>
    `${KEY_FOLDERS.lineage}${jobId}/${stage.toLowerCase()}-${String(attempt).padStart(2, "0")}.json`,
  /** Prefix of the jobs' lineage summaries. */
  lineageSummaries: KEY_FOLDERS.lineageSummaries,
  /** A job's lineage summary: a copy of its activity records, written when the job ends. */
  lineageSummary: (jobId: string) => `${KEY_FOLDERS.lineageSummaries}${jobId}.json`,
  /** Prefix of the notes jobs leave for the lineage index as they end (see `lineageIndexNote`). */
  lineageIndexPending: `${KEY_FOLDERS.lineageIndex}pending/`,
  /**
   * A note that `jobId`'s summary was (re)written at `writtenAt`, left after the summary: readers of
   * the index find the jobs it lacks in these notes, and the compaction that indexes a job deletes
   * its notes. `nonce` makes each write's note its own key, so a note left while a compaction runs
   * is never one it deletes.
   */
  lineageIndexNote: (jobId: string, writtenAt: Date, nonce: string) =>
    `${KEY_FOLDERS.lineageIndex}pending/${jobId}/${writtenAt.toISOString().replace(/[-:.]/g, "")}-${nonce}`,
  /** The marker of a CLI run in progress on a directory store, while it runs. */
  localRun: (runId: string) => `${KEY_FOLDERS.localRuns}${runId}.json`,
  /** Prefix of a job's claims: one per run, created only if absent. */
  claimPrefix: (jobId: string) => `${KEY_FOLDERS.claims}${jobId}/`,
  /** The claim of a job's `run`-th run. */
  claim: (jobId: string, run: number) =>
    `${KEY_FOLDERS.claims}${jobId}/run-${String(run).padStart(2, "0")}.json`,
  /** A job's report. */
  report: (jobId: string) => `${KEY_FOLDERS.reports}${jobId}.json`,
  /** The job a report's key names (`reports/<jobId>.json`), or `undefined` for another key. */
  jobOfReport: (key: string) =>
    key.startsWith(KEY_FOLDERS.reports) && key.endsWith(".json")
      ? key.slice(KEY_FOLDERS.reports.length, -".json".length)
      : undefined,
  /**
   * Where the workflow waiting for transcription job `jobName` leaves its task token, for the
   * job's state-change event to find (transcription-job-states.ts).
   */
  transcriptionWait: (jobName: string) => `${KEY_FOLDERS.transcriptionWaits}${jobName}.json`,
  /** An outcome event the local runtime keeps instead of sending it to an event bus. */
  event: (jobId: string, eventId: string) => `${KEY_FOLDERS.events}${jobId}/${eventId}.json`,
  /** A job's erasure record: what was erased, when, and why. */
  erasure: (jobId: string) => `${KEY_FOLDERS.erasures}${jobId}.json`,
};
