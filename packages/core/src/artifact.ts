import * as z from "zod/mini";
import type { StoredObject } from "./object-store";

/** The kinds of data the pipeline tracks separately. */
export const ArtifactKind = z.enum([
  "source-audio",
  "normalized-audio",
  "transcript",
  /** A transcription service's own output document (Amazon Transcribe's JSON), before it is read. */
  "transcription-output",
  "record",
  "reply-text",
  "reply-audio",
  "report",
  "prompt-manifest",
  "prompt-audio",
]);

/**
 * Kinds that enter the pipeline from outside: no recorded activity produced them, so lineage
 * chains end at them (an uploaded voicemail, an uploaded IVR prompt manifest).
 */
export const SOURCE_KINDS: readonly ArtifactKind[] = ["source-audio", "prompt-manifest"];
export type ArtifactKind = z.infer<typeof ArtifactKind>;

/**
 * A pointer to a stored artifact: what state payloads carry instead of the data itself
 * (docs/architecture.md, "Principle 2").
 */
export const ArtifactRef = z.object({
  kind: ArtifactKind,
  uri: z.string(),
  key: z.string(),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  bytes: z.number().check(z.int(), z.nonnegative()),
  contentType: z.string(),
});
export type ArtifactRef = z.infer<typeof ArtifactRef>;

/**
 * The pointer state payloads and records carry for an object a store wrote, as artifact `kind`.
 *
 * @example
 * const ref = artifactRefOf("transcript", await store.put(key, body, { contentType: "application/json" }));
 */
export function artifactRefOf(kind: ArtifactKind, stored: StoredObject): ArtifactRef {
  return {
    kind,
    uri: stored.uri,
    key: stored.key,
    sha256: stored.sha256 ?? "",
    bytes: stored.bytes,
    contentType: stored.contentType,
  };
}

/** The caller's audio as it landed: identified by bucket, key, version or etag, and hash. */
export const SourceRef = z.extend(ArtifactRef, {
  kind: z.literal("source-audio"),
  bucket: z.string(),
  versionId: z.optional(z.string()),
  etag: z.optional(z.string()),
});
export type SourceRef = z.infer<typeof SourceRef>;

/**
 * A prompts manifest as PreparePrompts read it: the version it read where the store keeps
 * versions, so an erasure of the job removes exactly that upload. Absent in records written
 * before it was kept.
 */
export const ManifestRef = z.extend(ArtifactRef, {
  kind: z.literal("prompt-manifest"),
  versionId: z.optional(z.string()),
});
export type ManifestRef = z.infer<typeof ManifestRef>;
