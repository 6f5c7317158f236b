import type { ObjectStore } from "@voxtrail/core";

/**
 * `store` as an attempt sees it: once `signal` has aborted (the attempt ran out of time), every
 * call rejects with the signal's reason before touching the store, so work that goes on after its
 * deadline reads and writes nothing. The kernel writes the attempt's own record through the
 * store itself, not through this view.
 *
 * @example
 * const view = abortableStore(deps.store, controller.signal);
 * controller.abort(new StageTimedOut("Synthesize ran past its invocation's time limit"));
 * await view.put(key, body, options); // rejects with StageTimedOut; nothing is written
 */
export function abortableStore(store: ObjectStore, signal: AbortSignal): ObjectStore {
  const guarded =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      signal.throwIfAborted();
      return call(...args);
    };
  return {
    bucket: store.bucket,
    uri: (key) => store.uri(key),
    put: guarded((key, body, options) => store.put(key, body, options)),
    putIfAbsent: guarded((key, body, options) => store.putIfAbsent(key, body, options)),
    get: guarded((key, version) => store.get(key, version)),
    getBytes: guarded((key, version) => store.getBytes(key, version)),
    head: guarded((key, version) => store.head(key, version)),
    list: guarded((prefix) => store.list(prefix)),
    delete: guarded((key, version) => store.delete(key, version)),
    versions: guarded((key) => store.versions(key)),
  };
}
