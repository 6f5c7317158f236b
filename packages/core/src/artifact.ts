import { z } from "zod";

/** The kinds of data the pipeline tracks separately. */
export const ArtifactKind = z.enum([
  "source-audio",
  "normalized-audio",
  "transcript",
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
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  contentType: z.string(),
});
export type ArtifactRef = z.infer<typeof ArtifactRef>;

/** The caller's audio as it landed: identified by bucket, key, version or etag, and hash. */
export const SourceRef = ArtifactRef.extend({
  kind: z.literal("source-audio"),
  bucket: z.string(),
  versionId: z.string().optional(),
  etag: z.string().optional(),
});
export type SourceRef = z.infer<typeof SourceRef>;
