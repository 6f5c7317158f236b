import { readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { holdsDirectoryStore } from "@voxtrail/storage";

/** A file to upload, with the name it gets under `incoming/voicemail/`. */
export interface InputFile {
  path: string;
  name: string;
}

/** Options of {@link collectInputFiles}. */
export interface CollectOptions {
  /**
   * Directories a walk never enters (the run's own store: a second `voxtrail run .` must not take
   * the uploads and replies the first one stored there for new voicemails).
   */
  exclude?: string[];
}

/**
 * Expands the command line's paths: a file named is taken as it is (whatever it holds: bad input
 * is the pipeline's to report, and a FIFO or device the run's to refuse); a directory contributes
 * its `.wav` files, recursively. Each file is named by its path from its
 * argument's parent: `001.wav` for the file `calls/001.wav`, `mon/001.wav` and `tue/001.wav` for
 * the directories `mon/` and `tue/` (`.` is named by the directory it is), so the files of two
 * directories never collide. A walk follows symbolic links (to files, and to directories it has
 * not entered yet, so a link loop ends), skips what is not a regular file, and never enters
 * `exclude` or any folder that holds a voxtrail store (`holdsDirectoryStore`: another run's
 * uploads and replies are no new voicemails). A directory named that is a store is refused. Two
 * inputs that would still get the same name are refused.
 *
 * @example
 * await collectInputFiles(["calls"], { exclude: ["calls/.voxtrail"] }); // [{ path: "calls/001.wav", name: "calls/001.wav" }, ...]
 */
export async function collectInputFiles(paths: string[], options: CollectOptions = {}): Promise<InputFile[]> {
  const excluded = await Promise.all((options.exclude ?? []).map(realDir));
  const files: InputFile[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new Error(`no such file or directory: ${path}`);
    if (info.isDirectory()) {
      if (await holdsDirectoryStore(path)) {
        throw new Error(
          `${path} is a voxtrail store, not a folder of voicemails: name the voicemails instead`,
        );
      }
      const entered = new Set(excluded);
      const found = (await walk(path, entered)).filter((file) => file.toLowerCase().endsWith(".wav")).sort();
      const parent = dirname(resolve(path));
      files.push(
        ...found.map((file) => ({ path: file, name: relative(parent, resolve(file)).split(sep).join("/") })),
      );
    } else {
      // Anything else named (a FIFO, a device) is the run's to refuse, alone: see LocalRuntime.run.
      files.push({ path, name: basename(path) });
    }
  }
  const seen = new Map<string, string>();
  for (const file of files) {
    const other = seen.get(file.name);
    if (other)
      throw new Error(`${other} and ${file.path} would both be uploaded as ${file.name}: rename one`);
    seen.set(file.name, file.path);
  }
  return files;
}

/** The regular files under `dir`, through symbolic links; `entered` holds real paths already walked. */
async function walk(dir: string, entered: Set<string>): Promise<string[]> {
  const real = await realDir(dir);
  if (entered.has(real)) return [];
  entered.add(real);
  const nested: string[][] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // A link is judged by what it points at; a dangling one is skipped.
    const info = entry.isSymbolicLink() ? await stat(path).catch(() => undefined) : entry;
    if (info?.isDirectory()) {
      if (!(await holdsDirectoryStore(path))) nested.push(await walk(path, entered));
    } else if (info?.isFile()) nested.push([path]);
  }
  return nested.flat();
}

/** A directory's real path (links resolved), or its absolute path when it does not exist. */
function realDir(dir: string): Promise<string> {
  return realpath(dir).catch(() => resolve(dir));
}
