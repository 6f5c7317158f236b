import { stat } from "node:fs/promises";
import path from "node:path";
import { VERSIONS_DIR } from "./kept-versions";

/** The directory store's sidecar folder at its root (see `DirectoryStore`). */
export const META_DIR = ".meta";

/**
 * Whether `dir` is the root of a directory store: it holds the store's own `.meta/` and
 * `.versions/` folders, which every store that was ever written has. A walk for input files skips
 * such a folder, whichever run's store it is.
 *
 * @example
 * await holdsDirectoryStore(".voxtrail"); // true once a run has stored anything there
 */
export async function holdsDirectoryStore(dir: string): Promise<boolean> {
  const isDirectory = (name: string) =>
    stat(path.join(dir, name)).then(
      (info) => info.isDirectory(),
      () => false,
    );
  const [meta, versions] = await Promise.all([isDirectory(META_DIR), isDirectory(VERSIONS_DIR)]);
  return meta && versions;
}
