import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  importCircles,
  importGraph,
  sourceFilesUnder,
  sourceReaches,
  specifiersOf,
  subgraph,
} from "../support/import-graph";

const ROOT = new URL("../../", import.meta.url).pathname;
/** Where code lives outside the packages (tools/ too, once bench's model tools move there). */
const OUTSIDE = ["stacks", "bench", "tools", "scripts", "test"];

/** Every source file of the repo's code: the packages (src, tests, bins), stacks, tools, tests. */
function codeFiles(root: string): string[] {
  const config = existsSync(join(root, "sst.config.ts")) ? ["sst.config.ts"] : [];
  return [...["packages", ...OUTSIDE].flatMap((dir) => sourceFilesUnder(root, dir)), ...config];
}

/** The packages' sources and the stacks: where an import circle must never be. */
function graphFiles(root: string): string[] {
  const packages = readdirSync(join(root, "packages")).sort();
  return [
    ...packages.flatMap((pkg) => sourceFilesUnder(root, `packages/${pkg}/src`)),
    ...sourceFilesUnder(root, "stacks"),
  ];
}

/** `file -> specifier` for each import that reaches into another package's source by path. */
function reachesIn(root: string, files: string[]): string[] {
  return files.flatMap((file) =>
    sourceReaches(root, file, specifiersOf(readFileSync(join(root, file), "utf8"))).map(
      (specifier) => `${file} -> ${specifier}`,
    ),
  );
}

// The graph is TypeScript's own: each file's imports as its pre-processor reads them (type-only and
// dynamic ones too), resolved as tsconfig.json resolves them. To see the chain of a circle's imports:
// npx dpdm --no-tree --no-warning "packages/*/src/**/*.ts" "stacks/**/*.ts"
describe("the import graph", () => {
  const files = codeFiles(ROOT);
  const graph = importGraph(ROOT, files);

  it("has no import circle among the packages' sources and the stacks, type-only imports included", () => {
    expect(importCircles(subgraph(graph, graphFiles(ROOT)))).toEqual([]);
  });

  it("has no import circle anywhere else in the repo's code (bench, tools, scripts, tests)", () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it("imports every package by its name from outside it, never by a path into its src", () => {
    expect(reachesIn(ROOT, files)).toEqual([]);
  });
});

describe("the import graph's checks, on a repo made for them", () => {
  const root = mkdtempSync(join(tmpdir(), "voxtrail-import-graph-"));
  const files: Record<string, string> = {
    "packages/a/package.json": JSON.stringify({ name: "@fixture/a", exports: { ".": "./src/index.ts" } }),
    "packages/a/src/index.ts": 'export { x } from "./x";\n',
    "packages/a/src/x.ts": 'import type { Y } from "./y";\nexport const x = (y: Y) => y;\n',
    "packages/a/src/y.ts": 'import { x } from "./x";\nexport type Y = Parameters<typeof x>[0] | number;\n',
    "packages/a/test/x.test.ts": 'import { x } from "../src/x";\nexport const own = x;\n',
    "packages/b/src/index.ts": 'import { x } from "../../a/src/x";\nexport const b = x;\n',
    "stacks/s.ts": 'import { x } from "../packages/a/src";\nexport const s = x;\n',
    "test/t.ts": 'export const t = () => import("../packages/a/src/y");\n',
    "test/u.ts": 'import type { Y } from "../packages/a/test/x.test";\nimport "@voxtrail/a/src/x";\n',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds a circle tied by a type alone", () => {
    expect(importCircles(subgraph(importGraph(root, codeFiles(root)), graphFiles(root)))).toEqual([
      ["packages/a/src/x.ts", "packages/a/src/y.ts"],
    ]);
  });

  it("finds every path into another package's src, and lets a package's own tests use theirs", () => {
    expect(reachesIn(root, codeFiles(root))).toEqual([
      "packages/b/src/index.ts -> ../../a/src/x",
      "stacks/s.ts -> ../packages/a/src",
      "test/t.ts -> ../packages/a/src/y",
      "test/u.ts -> @voxtrail/a/src/x",
    ]);
  });
});
