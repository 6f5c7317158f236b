import { ARTIFACT_FILES, keys, VOICEMAIL_INCOMING_PREFIX } from "../packages/workflow/src";

/** The top-level folder of a key or prefix the key layout builds: `lineage/` of `lineage/<jobId>/`. */
function folderOf(key: string): string {
  return key.slice(0, key.indexOf("/") + 1);
}

/**
 * The bucket's top-level folders, read off the key layout (packages/workflow/src/key-layout.ts),
 * which builds each job's keys but names none of these folders by itself: what IAM patterns and
 * lifecycle rules that cover every job are written over.
 *
 * @example
 * `${KEY_FOLDERS.lineage}*`; // "lineage/*": every job's activity records
 */
export const KEY_FOLDERS = {
  incoming: folderOf(VOICEMAIL_INCOMING_PREFIX),
  artifacts: folderOf(keys.artifact("*", ARTIFACT_FILES.normalizedAudio)),
  lineage: folderOf(keys.lineagePrefix("*")),
  claims: folderOf(keys.claimPrefix("*")),
  reports: folderOf(keys.report("*")),
};
