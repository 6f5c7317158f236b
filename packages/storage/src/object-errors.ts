import { ObjectChanged, ObjectNotFound } from "@voxtrail/core";

/** A read named the object by its etag, and another object has replaced it under the key since. */
export function objectReplaced(): ObjectChanged {
  return new ObjectChanged(
    "the object under the key is no longer the one named (its etag differs): it was replaced",
  );
}

/**
 * `store` (`"the bucket"`, `"the directory store"`) has no object under the key read, or not the
 * version named.
 */
export function objectNotFound(store: string): ObjectNotFound {
  return new ObjectNotFound(`${store} has no object under the key`);
}
