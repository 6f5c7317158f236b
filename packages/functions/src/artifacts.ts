import type { ArtifactKind, ArtifactRef, ObjectBody, ObjectStore } from "@voxtrail/core";
import { artifactRefOf, InvalidInput } from "@voxtrail/core";
import * as z from "zod/mini";

/**
 * Writes `body` (a Readable or a local file is streamed) under `key` and returns the pointer that
 * state payloads carry.
 */
export async function putArtifact(
  store: ObjectStore,
  kind: ArtifactKind,
  key: string,
  body: ObjectBody,
  contentType: string,
): Promise<ArtifactRef> {
  return artifactRefOf(kind, await store.put(key, body, { contentType }));
}

/** Writes `value` as pretty JSON. */
export function putJsonArtifact(store: ObjectStore, kind: ArtifactKind, key: string, value: unknown) {
  return putArtifact(store, kind, key, `${JSON.stringify(value, null, 2)}\n`, "application/json");
}

/** Reads a JSON artifact and checks it against `schema`. */
export async function readJsonArtifact<T>(
  store: ObjectStore,
  ref: ArtifactRef,
  schema: z.core.$ZodType<T>,
): Promise<T> {
  const parsed = z.safeParse(schema, JSON.parse((await store.getBytes(ref.key)).toString("utf8")));
  if (!parsed.success) throw new InvalidInput(`${ref.kind} artifact ${ref.key} does not match its schema`);
  return parsed.data;
}
