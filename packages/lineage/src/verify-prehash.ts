import type { ObjectStore } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import type { HashedObject } from "./verify-artifacts";

/** What a directory store holds under a prefix, each object hashed as it is: under way. */
export interface Prehash {
  prefix: string;
  done: Promise<{
    /** The listing, in the store's order. */
    listed: string[];
    /** By key: the sha256 and size read (`undefined`: gone since it was listed). */
    hashes: Map<string, HashedObject | undefined>;
  }>;
}

/**
 * Lists `prefix` and starts hashing every object under it as it is now, on a directory store's
 * worker threads (`DirectoryStore.hashObjects`): begun before the records are read, the hashing
 * runs on the other cores while this one parses them. What `verify` re-hashes under `prefix`
 * (outputs, as their keys hold them now) is then taken from here. Any other store: `undefined`
 * (its objects are read once the lineage says which).
 *
 * @example
 * const early = prehash(store, KEY_FOLDERS.artifacts);
 * const graph = LineageGraph.of(await readLineage(store)); // hashed meanwhile
 * (await early?.done)?.hashes.get(transcriptKey); // { sha256: "…", bytes: 412 }
 */
export function prehash(store: ObjectStore, prefix: string): Prehash | undefined {
  if (!(store instanceof DirectoryStore)) return undefined;
  const done = (async () => {
    const listed = await store.list(prefix);
    const found = await store.hashObjects(listed.map((key) => ({ key })));
    return { listed, hashes: new Map(listed.map((key, index) => [key, found[index]])) };
  })();
  // Awaited once the records are read: a failure meanwhile is not unhandled.
  done.catch(() => undefined);
  return { prefix, done };
}
