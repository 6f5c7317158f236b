import { S3Client } from "@aws-sdk/client-s3";
import type { ObjectStore } from "@voxtrail/core";
import { DirectoryStore, S3Store } from "@voxtrail/storage";

/** Where the lineage lives: a bucket (standard AWS configuration), or a local store directory. */
export type LineageLocation = { bucket: string } | { dir: string };

/**
 * The store an auditor's command reads: `S3Store` on the bucket with a client that honours the
 * standard AWS configuration (`AWS_REGION`, profiles, `AWS_ENDPOINT_URL_S3`), or the directory
 * store `voxtrail run` wrote.
 *
 * @example
 * const store = openLineageStore({ bucket: "voxtrail-production-audio" });
 */
export function openLineageStore(location: LineageLocation): ObjectStore {
  if ("bucket" in location) return new S3Store({ client: new S3Client({}), bucket: location.bucket });
  return new DirectoryStore({ root: location.dir });
}
