import { createHash } from "node:crypto";
import { type ArtifactRef, ObjectNotFound, type ObjectStore } from "@voxtrail/core";
import { issue, type VerifyIssue } from "./verify-issues";

/** An artifact the lineage says a job wrote or read, to be re-hashed. */
export interface NamedArtifact {
  ref: ArtifactRef & { versionId?: string };
  jobId: string;
}

/** An object's sha256 and size as read, and its body when it was read in one piece. */
export interface HashedObject {
  sha256: string;
  bytes: number;
  body?: Buffer;
}

/** Objects recorded at most this size are read in one piece; larger ones are streamed. */
const WHOLE_READ_BYTES = 1 << 20;

/**
 * The sha256 and size of the object; `undefined` when it is not there. An object recorded as small
 * is read in one piece (far less overhead per object than a stream: a store holds tens of
 * thousands of small artifacts), and its body is kept for a caller that parses it too; a large one
 * streams through the hash, never whole in memory.
 */
export async function sha256Of(
  store: ObjectStore,
  key: string,
  recordedBytes: number,
  versionId?: string,
): Promise<HashedObject | undefined> {
  const hash = createHash("sha256");
  const version = versionId ? { versionId } : undefined;
  try {
    if (recordedBytes <= WHOLE_READ_BYTES) {
      const body = await store.getBytes(key, version);
      return { sha256: hash.update(body).digest("hex"), bytes: body.byteLength, body };
    }
    let bytes = 0;
    for await (const chunk of await store.get(key, version)) {
      hash.update(chunk);
      bytes += chunk.byteLength;
    }
    return { sha256: hash.digest("hex"), bytes };
  } catch (error) {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  }
}

/** What a produced artifact's bytes, as read, say against the hash its producer recorded. */
export function checkOutput(
  { ref, jobId }: NamedArtifact,
  actual: HashedObject | undefined,
): VerifyIssue | undefined {
  if (actual === undefined) return missing(ref, jobId, ref.kind);
  if (actual.sha256 === ref.sha256) return undefined;
  return mismatch(ref, jobId, ref.kind, actual);
}

/**
 * Checks jobs' sources, each against its own job's hash: its recorded version where the store
 * keeps versions, else whatever the key holds now. Bytes another job recorded as its source at the
 * same key are a later upload that replaced this job's (`source-replaced`, naming the first such
 * job); any other bytes are a `hash-mismatch`.
 */
export class SourceCheck {
  /** Per key and sha256, the first job (of all the sources named) that read those bytes there. */
  readonly #readers = new Map<string, string>();

  /** `sources`: every job's source the lineage names, in job order (the checked ones and the others). */
  constructor(sources: Iterable<NamedArtifact>) {
    for (const { ref, jobId } of sources) {
      const at = `${ref.key}\u0000${ref.sha256}`;
      if (!this.#readers.has(at)) this.#readers.set(at, jobId);
    }
  }

  /** What one job's source, as read (at its recorded version, if any), says against its job's hash. */
  check({ ref, jobId }: NamedArtifact, actual: HashedObject | undefined): VerifyIssue | undefined {
    const what = `${ref.kind}${ref.versionId ? ` version ${ref.versionId}` : ""}`;
    if (actual === undefined) return missing(ref, jobId, what);
    if (actual.sha256 === ref.sha256) return undefined;
    const replacer = ref.versionId ? undefined : this.#readers.get(`${ref.key}\u0000${actual.sha256}`);
    if (replacer !== undefined) {
      return issue(
        "source-replaced",
        ref.key,
        jobId,
        `job ${jobId}'s ${ref.kind} (sha256 ${ref.sha256}) was replaced by the upload job ${replacer} read: the store keeps no versions`,
      );
    }
    return mismatch(ref, jobId, what, actual);
  }
}

/** An artifact the lineage names that the store does not hold. */
export function missing(ref: ArtifactRef, jobId: string, what: string): VerifyIssue {
  return issue(
    "missing-artifact",
    ref.key,
    jobId,
    `${what} recorded with sha256 ${ref.sha256} is not in the store`,
  );
}

function mismatch(ref: ArtifactRef, jobId: string, what: string, actual: HashedObject): VerifyIssue {
  return issue(
    "hash-mismatch",
    ref.key,
    jobId,
    `${what} should have sha256 ${ref.sha256} (${ref.bytes} bytes), has ${actual.sha256} (${actual.bytes} bytes)`,
  );
}
