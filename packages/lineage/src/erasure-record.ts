/** Prefix of the erasure records. */
export const ERASURES_PREFIX = "erasures/";

/** Where the erasure record of a job goes. */
export function erasureKey(jobId: string): string {
  return `${ERASURES_PREFIX}${jobId}.json`;
}
