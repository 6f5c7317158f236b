import { jobIdFor, type SourceIdentity } from "./job-id";

/**
 * The IVR prompts workflow's place in the bucket: where manifests land, and where each prompt job
 * keeps its prepared rows, per-prompt results, audio and report (`prompts/<jobId>/...`).
 */

/** Prefix under which a manifest's arrival starts the prompts workflow. */
export const PROMPTS_INCOMING_PREFIX = "incoming/prompts/";

/** Key layout of prompt jobs. */
export const promptKeys = {
  /** Where an uploaded manifest named `name` lands. */
  incomingManifest: (name: string) => `${PROMPTS_INCOMING_PREFIX}${name}`,
  /** Prefix of everything a prompt job writes outside `lineage/`. */
  jobPrefix: (jobId: string) => `prompts/${jobId}/`,
  /** The manifest's valid rows, one JSON object per line: what the Map reads. */
  rows: (jobId: string) => `prompts/${jobId}/rows.jsonl`,
  /** The manifest's bad rows, each with its line number and named reason. */
  badRows: (jobId: string) => `prompts/${jobId}/bad-rows.json`,
  /** One prompt's audio. */
  audio: (jobId: string, id: string) => `prompts/${jobId}/${id}.wav`,
  /** Prefix of the per-prompt result objects. */
  resultsPrefix: (jobId: string) => `prompts/${jobId}/results/`,
  /** One prompt's result object: status, row hash, audio pointer and figures. */
  result: (jobId: string, id: string) => `prompts/${jobId}/results/${id}.json`,
  /** Where the cloud Map's ResultWriter puts its result manifest. */
  mapResultsPrefix: (jobId: string) => `prompts/${jobId}/map-results`,
  /** The batch report. */
  report: (jobId: string) => `prompts/${jobId}/report.json`,
};

/**
 * A prompt job's id, derived from the manifest's identity exactly as a voicemail job's is from its
 * audio (see {@link jobIdFor}), with the `pr-` prefix: the same manifest always maps to the same
 * job, which is what makes a rerun skip the prompts already done.
 *
 * @example
 * promptsJobIdFor({ bucket: "b", key: "incoming/prompts/menu.csv", etag: "abc" }); // "pr-…"
 */
export function promptsJobIdFor(source: SourceIdentity): string {
  return `pr-${jobIdFor(source).slice("vm-".length)}`;
}
