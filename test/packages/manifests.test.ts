import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;
const PACKAGES = readdirSync(join(ROOT, "packages")).sort();

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.(ts|m?js)$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The packages a file imports or requires (static, dynamic or type-only), by package name. */
function importedPackages(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const required = [...text.matchAll(/\brequire(?:\.resolve)?\("([^"]+)"\)/g)].map(
    (match) => match[1] as string,
  );
  return [...importedFiles.map(({ fileName }) => fileName), ...required]
    .filter((name) => !name.startsWith(".") && !name.startsWith("node:"))
    .map((name) =>
      (name.startsWith("@") ? name.split("/").slice(0, 2) : name.split("/").slice(0, 1)).join("/"),
    );
}

/** A package's own code imports it only for its types: `@types/<name>` declares it. */
function declares(manifest: Manifest, name: string): boolean {
  const declared = { ...manifest.dependencies, ...manifest.devDependencies };
  return name in declared || `@types/${name}` in declared;
}

describe("package manifests", () => {
  it.each(PACKAGES)(
    "%s declares every package its source imports, and depends on nothing it does not import",
    (pkg) => {
      const manifest = JSON.parse(
        readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8"),
      ) as Manifest;
      const dirs = ["src", "bin", "build"]
        .map((dir) => join(ROOT, "packages", pkg, dir))
        .filter((dir) => existsSync(dir));
      const imported = new Set(dirs.flatMap(sourceFiles).flatMap(importedPackages));
      expect([...imported].filter((name) => !declares(manifest, name)).sort()).toEqual([]);
      expect(Object.keys(manifest.dependencies ?? {}).filter((name) => !imported.has(name))).toEqual([]);
    },
  );

  it("every package asks for the same zod", () => {
    const ranges = new Set(
      PACKAGES.map(
        (pkg) =>
          (JSON.parse(readFileSync(join(ROOT, "packages", pkg, "package.json"), "utf8")) as Manifest)
            .dependencies?.zod,
      ).filter((range) => range !== undefined),
    );
    expect(ranges.size).toBe(1);
  });
});
