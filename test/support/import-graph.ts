import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;

/** Compiler options for resolving imports as the repo's tsconfig does (Bundler, package "exports"). */
const RESOLUTION: ts.CompilerOptions = {
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  resolveJsonModule: true,
  allowJs: true,
};

/** Source files under `dir` (repo-relative, sorted), skipping node_modules, dot folders and .d.ts. */
export function sourceFilesUnder(root: string, dir: string): string[] {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true })
    .filter((entry) => entry.name !== "node_modules" && !entry.name.startsWith("."))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return sourceFilesUnder(root, path);
      return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
    })
    .sort();
}

/**
 * Every module a file names: imports (type-only too), re-exports, `import()` calls and types,
 * and `require()`, read by TypeScript's own pre-processor.
 */
export function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName }) => fileName);
}

/**
 * The repo-relative file `specifier` resolves to from `file`, or undefined outside the repo's own
 * code; `cache` shares lookups between calls.
 */
function resolveImport(
  root: string,
  file: string,
  specifier: string,
  cache?: ts.ModuleResolutionCache,
): string | undefined {
  const { resolvedModule } = ts.resolveModuleName(specifier, join(root, file), RESOLUTION, ts.sys, cache);
  if (!resolvedModule) return undefined;
  const target = relative(root, realpathSync(resolvedModule.resolvedFileName));
  return target.startsWith("..") || target.includes("node_modules") ? undefined : target;
}

/** The package a repo-relative path lies in (`packages/<name>/...`), if any. */
function packageOf(path: string): string | undefined {
  return /^packages\/([^/]+)(\/|$)/.exec(path)?.[1];
}

/**
 * The imports of `file` that reach into another package's source by path: a relative path to
 * `packages/<other>` or into `packages/<other>/src`, or any specifier naming `packages/<name>/src`.
 * A package's own files may use its own paths; everyone else imports a package by its name.
 */
export function sourceReaches(root: string, file: string, specifiers: string[]): string[] {
  const own = packageOf(file);
  return specifiers.filter((specifier) => {
    if (specifier.startsWith(".") || specifier.startsWith("/")) {
      const target = relative(root, resolve(root, dirname(file), specifier));
      const reached = packageOf(target);
      return reached !== undefined && reached !== own && /^packages\/[^/]+(\/src(\/.*)?)?$/.test(target);
    }
    return /(^|\/)packages\/[^/]+\/src(\/|$)|^@voxtrail\/[^/]+\/src(\/|$)/.test(specifier);
  });
}

/** The import graph among `files`: each file's imports that resolve to another of `files`. */
export function importGraph(root: string, files: string[]): Map<string, string[]> {
  const inGraph = new Set(files);
  const cache = ts.createModuleResolutionCache(root, (name) => name, RESOLUTION);
  return new Map(
    files.map((file) => {
      const targets = specifiersOf(readFileSync(join(root, file), "utf8"))
        .map((specifier) => resolveImport(root, file, specifier, cache))
        .filter((target): target is string => target !== undefined && inGraph.has(target));
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The part of `graph` among `files`. */
export function subgraph(graph: Map<string, string[]>, files: string[]): Map<string, string[]> {
  const kept = new Set(files);
  return new Map(
    [...graph]
      .filter(([file]) => kept.has(file))
      .map(([file, targets]) => [file, targets.filter((target) => kept.has(target))]),
  );
}

/**
 * The graph's import circles: each strongly connected component of more than one file, or a file
 * importing itself, its files sorted (Tarjan's algorithm).
 */
export function importCircles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) as number, index.get(target) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}
