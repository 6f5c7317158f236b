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
 * Writes a job by hand, as someone who can write the store but holds no signing key would forge
 * one: job `from`'s artifacts and report copied byte for byte under the job id `fake`, its records with
 * `from` replaced by `fake` and re-chained (each record names its forged predecessor's sha256), and
 * a summary with the forged records' hashes. Internally consistent: only the signed digests (and
 * the source version both jobs claim) can tell.
 *
 * @example
 * await forgeJob(store, "vm-0123456789abcdef0123", "vm-00000000000000000000");
 */
export async function forgeJob(store: ObjectStore, from: string, fake: string): Promise<void> {
  for (const key of [...(await store.list(keys.artifactPrefix(from))), keys.report(from)]) {
    const contentType = (await store.head(key))?.contentType ?? "application/octet-stream";
    await store.put(key.replace(from, fake), await store.getBytes(key), { contentType });
  }
  // Records in chain order: each after the one it names as its predecessor, with that one's new hash.
  const pending = new Map<string, Record<string, unknown>>();
  for (const key of await store.list(keys.lineagePrefix(from))) {
    const text = (await store.getBytes(key)).toString("utf8").replaceAll(from, fake);
    pending.set(key.replace(from, fake), JSON.parse(text));
  }
  const written = new Map<string, string>();
  while (pending.size > 0) {
    const size = pending.size;
    for (const [key, record] of pending) {
      const previous = record.previousRecord as { key: string; sha256: string } | null | undefined;
      if (previous && pending.has(previous.key)) continue;
      const sha256 = previous ? written.get(previous.key) : undefined;
      const body = `${JSON.stringify(sha256 && previous ? { ...record, previousRecord: { ...previous, sha256 } } : record, null, 2)}\n`;
      await store.put(key, body, { contentType: "application/json" });
      written.set(key, createHash("sha256").update(body).digest("hex"));
      pending.delete(key);
    }
    if (pending.size === size) throw new Error(`the records of job ${from} do not form chains`);
  }
  const summary = (await store.getBytes(keys.lineageSummary(from))).toString("utf8").replaceAll(from, fake);
  await store.put(keys.lineageSummary(fake), summary, { contentType: "application/json" });
  await rewriteSummary(store, fake);
}
