import { readdir, stat } from "node:fs/promises";
import { basename, join, relative, sep } from "node:path";

/** A file to upload, with the name it gets under `incoming/voicemail/`. */
export interface InputFile {
  path: string;
  name: string;
}

/**
 * Expands the command line's paths: a file is taken as it is (whatever it holds: bad input is the
 * pipeline's to report); a directory contributes its `.wav` files, recursively, named by their
 * path inside it. Two inputs that would get the same name are refused.
 */
export async function collectInputFiles(paths: string[]): Promise<InputFile[]> {
  const files: InputFile[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new Error(`no such file or directory: ${path}`);
    if (info.isDirectory()) {
      const found = (await walk(path)).filter((file) => file.toLowerCase().endsWith(".wav")).sort();
      files.push(...found.map((file) => ({ path: file, name: relative(path, file).split(sep).join("/") })));
    } else {
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

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return Promise.resolve(entry.isFile() ? [path] : []);
    }),
  );
  return nested.flat();
}
