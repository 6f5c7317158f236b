/**
 * @voxtrail/storage: the object stores (a directory on disk, S3) behind core's `ObjectStore`, and
 * the worker threads that hash and parse in batches.
 */
export { DirectoryStore } from "./directory-store";
export { retentionFrom, S3Store } from "./s3-store";
export { holdsDirectoryStore } from "./store-root";
export { WorkerBatches } from "./worker-batches";
