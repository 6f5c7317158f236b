import { createHash } from "node:crypto";
import type { ArtifactKind, ArtifactRef, ObjectStore } from "@voxtrail/core";

/**
 * The pointer to the object under `key` when it already holds exactly `body` (same sha256, as the
 * store recorded it), else `undefined`. Lets a rerun leave an unchanged object, and its lineage,
 * untouched instead of writing the same bytes again.
 *
 * @example
 * const ref = (await unchangedObject(store, "report", key, body, "application/json")) ?? (await putArtifact(...));
 */
export async function unchangedObject(
  store: ObjectStore,
  kind: ArtifactKind,
  key: string,
  body: Uint8Array,
  contentType: string,
): Promise<ArtifactRef | undefined> {
  const head = await store.head(key);
  if (!head?.sha256) return undefined;
  const sha256 = createHash("sha256").update(body).digest("hex");
  if (head.sha256 !== sha256 || head.bytes !== body.byteLength) return undefined;
  return { kind, uri: head.uri, key: head.key, sha256, bytes: head.bytes, contentType };
}
