import { statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "./usage-error";

/**
 * `--store` as the commands that keep a local store take it: a directory, or a path not created
 * yet (absolute).
 *
 * @throws UsageError when it names something else, such as a file.
 * @example
 * const storeDir = storeDirectory(options.store); // "/home/me/calls/.voxtrail"
 */
export function storeDirectory(store: string): string {
  const info = statSync(store, { throwIfNoEntry: false });
  if (info && !info.isDirectory()) {
    throw new UsageError(`--store ${store} is not a directory: name the folder the store is kept in`);
  }
  return resolve(store);
}
