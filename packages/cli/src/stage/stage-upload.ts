import type { ObjectStore } from "@voxtrail/core";
import type { JobWorkflow, SourceIdentity } from "@voxtrail/workflow";

/** A local file to upload: where it is, the name it gets under the incoming prefix, its content type. */
export interface LocalUpload {
  path: string;
  name: string;
  contentType: string;
}

/**
 * Uploads a local file under the workflow's incoming prefix, where the stage's rule starts the
 * workflow on it. Resolves to the object's identity as its S3 event will name it: bucket, key, and
 * the version id and ETag S3 answered with.
 *
 * @example
 * const source = await uploadToStage(store, VOICEMAIL_WORKFLOW, { path: "./call.wav", name: "call.wav", contentType: "audio/wav" });
 * source.key; // "incoming/voicemail/call.wav"
 */
export async function uploadToStage(
  store: ObjectStore,
  workflow: Pick<JobWorkflow<string>, "incomingPrefix">,
  { path, name, contentType }: LocalUpload,
): Promise<SourceIdentity> {
  const key = `${workflow.incomingPrefix}${name}`;
  const stored = await store.put(key, { localFile: path }, { contentType });
  return {
    bucket: store.bucket,
    key,
    ...(stored.versionId ? { versionId: stored.versionId } : {}),
    ...(stored.etag ? { etag: stored.etag } : {}),
  };
}
