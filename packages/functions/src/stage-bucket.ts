import { InvalidInput, type ObjectStore } from "@voxtrail/core";
import type { ObjectCreatedEvent } from "@voxtrail/workflow";

/**
 * What a workflow's first function checks of its S3 event before anything else: the upload is in
 * the stage's own bucket. `InvalidInput` otherwise, naming the two buckets (never a key).
 *
 * @example
 * requireStageBucket(input.event, deps.store); // throws unless detail.bucket.name is deps.store.bucket
 */
export function requireStageBucket(
  event: Pick<ObjectCreatedEvent, "detail">,
  store: Pick<ObjectStore, "bucket">,
): void {
  const { name } = event.detail.bucket;
  if (name !== store.bucket) {
    throw new InvalidInput(`event names bucket ${name}, but this stage reads ${store.bucket}`);
  }
}
