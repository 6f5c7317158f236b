export {
  DirectoryStore,
  type DirectoryStoreOptions,
  type ObjectHash,
  type ObjectToHash,
} from "./directory-store";
export { assertValidKey } from "./object-key";
export { type ObjectRetention, retentionFrom, S3Store, type S3StoreOptions } from "./s3-store";
export { WorkerBatches } from "./worker-batches";
