import { createHash } from "node:crypto";
import { LineageSummary, type ObjectStore } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";

/** The JSON object at `key`. */
export async function readJsonObject(store: ObjectStore, key: string): Promise<Record<string, unknown>> {
  return JSON.parse((await store.getBytes(key)).toString("utf8"));
}

/** Writes `value` at `key` as the pipeline writes JSON. */
export async function putJsonObject(store: ObjectStore, key: string, value: unknown): Promise<void> {
  await store.put(key, `${JSON.stringify(value, null, 2)}\n`, { contentType: "application/json" });
}

/**
 * Rewrites a job's lineage summary to copy its records as they are now, with their hashes: what
 * someone who edited a record (but holds no signing key) does so that the summary agrees.
 *
 * @example
 * await putJsonObject(store, recordKey, { ...record, processors: [] });
 * await rewriteSummary(store, jobId); // a consistent edit: only the signed digests can tell
 */
export async function rewriteSummary(store: ObjectStore, jobId: string): Promise<void> {
  const summary = LineageSummary.parse(await readJsonObject(store, keys.lineageSummary(jobId)));
  const records = await Promise.all(
    summary.records.map(async ({ key }) => {
      const bytes = await store.getBytes(key);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      return { key, sha256, record: JSON.parse(bytes.toString("utf8")) };
    }),
  );
  await putJsonObject(store, keys.lineageSummary(jobId), { ...summary, records });
}

/**
 * Writes a job by hand: a copy of job `from`'s records under the job id `fake`, each record and the
 * summary internally consistent (the summary's hashes are the copies' own), as someone who can
 * write the store but holds no signing key would forge one.
 *
 * @example
 * await forgeJob(store, "vm-0123456789abcdef0123", "vm-00000000000000000000");
 */
export async function forgeJob(store: ObjectStore, from: string, fake: string): Promise<void> {
  for (const key of await store.list(keys.lineagePrefix(from))) {
    const text = (await store.getBytes(key)).toString("utf8").replaceAll(from, fake);
    await store.put(key.replace(from, fake), text, { contentType: "application/json" });
  }
  const summary = (await store.getBytes(keys.lineageSummary(from))).toString("utf8").replaceAll(from, fake);
  await store.put(keys.lineageSummary(fake), summary, { contentType: "application/json" });
  await rewriteSummary(store, fake);
}
