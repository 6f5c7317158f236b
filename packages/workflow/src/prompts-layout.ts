import { jobIdFor, type SourceIdentity } from "./job-id";
import { KEY_FOLDERS } from "./key-layout";

/**
 * The IVR prompts workflow's place in the bucket: where manifests land, and where each prompt job
 * keeps its prepared rows, per-prompt results, audio and report (`prompts/<jobId>/...`).
 */

/** Prefix under which a manifest's arrival starts the prompts workflow. */
export const PROMPTS_INCOMING_PREFIX = `${KEY_FOLDERS.incoming}prompts/` as const;

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
 * A prompt job's id, from the manifest's bucket, key and content (its etag; the version id only
 * when no etag is known), with the `pr-` prefix. Unlike a voicemail job (one per object version,
 * see {@link jobIdFor}) the same manifest uploaded again is the same job: prompts are the
 * operator's text, not a caller's, and rerunning a manifest is how an operator redoes the failed
 * prompts while skipping the done ones.
 *
 * @example
 * promptsJobIdFor({ bucket: "b", key: "incoming/prompts/menu.csv", etag: "abc" }); // "pr-…"
 */
export function promptsJobIdFor(source: SourceIdentity): string {
  const content = source.etag ? { ...source, versionId: undefined } : source;
  return `pr-${jobIdFor(content).slice("vm-".length)}`;
}
