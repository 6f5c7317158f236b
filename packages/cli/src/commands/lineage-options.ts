import type { ObjectStore } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage/directory-store";
import { storeDirectory } from "../store-option";
import { trustedKeys } from "../trusted-keys";

/** Options of `voxtrail lineage`. */
export interface LineageOptions {
  store: string;
  bucket?: string | undefined;
  stage?: string | undefined;
  job?: string | undefined;
  since?: string | undefined;
  format?: string | undefined;
  to?: string | undefined;
  domain?: string | undefined;
  "public-key"?: string[] | undefined;
  "kms-key-id"?: string | undefined;
  grace?: string | undefined;
  "expect-head"?: string | undefined;
  engine?: string | undefined;
  database?: string | undefined;
  workgroup?: string | undefined;
  json: boolean;
}

/** Writes a subcommand's answer: `json` with `--json`, else the readable `text()`. */
export type Out = (json: unknown, text: () => string) => void;

/**
 * The store the lineage is read from: the bucket (`--bucket`, or the stage's), whose S3 client
 * loads only then, or the local directory store (`--store`).
 */
export async function lineageStore(options: LineageOptions): Promise<ObjectStore> {
  if (!options.bucket) return new DirectoryStore({ root: storeDirectory(options.store) });
  const { openLineageStore } = await import("@voxtrail/lineage");
  return openLineageStore({ bucket: options.bucket });
}

/** The keys `verify` checks digests with, and the index's proof too: the flags', else this machine's. */
export function trustedKeysOf(options: LineageOptions): ReturnType<typeof trustedKeys> {
  return trustedKeys({
    publicKeys: options["public-key"],
    kmsKeyId: options["kms-key-id"],
    local: options.bucket === undefined,
  });
}
