import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isInside } from "../src/path-containment";

/** The rule `isInside` keeps, by resolving both paths every time. */
function resolvedInside(directory: string, candidate: string): boolean {
  const relative = path.relative(directory, candidate);
  return !(relative === ".." || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative));
}

/** Absolute paths made of a few names, dot segments and doubled separators. */
const absolutePath = fc
  .array(fc.constantFrom("a", "b", "ab", ".", "..", "..a", ".meta", ""), { maxLength: 6 })
  .map((segments) => `/${segments.join("/")}`);

describe("isInside", () => {
  it("answers as resolving both paths does, whatever the dot segments and separators", () => {
    fc.assert(
      fc.property(absolutePath, absolutePath, (directory, candidate) => {
        expect(isInside(directory, candidate)).toBe(resolvedInside(directory, candidate));
        expect(isInside(directory, `${directory}${candidate}`)).toBe(
          resolvedInside(directory, `${directory}${candidate}`),
        );
      }),
      { numRuns: 5000 },
    );
  });

  it("takes a path below the directory, and refuses one beside it or above it", () => {
    expect(isInside("/srv/store", "/srv/store")).toBe(true);
    expect(isInside("/srv/store", "/srv/store/a/b")).toBe(true);
    expect(isInside("/srv/store", "/srv/store-2/a")).toBe(false);
    expect(isInside("/srv/store", "/srv/store/a/../../etc")).toBe(false);
    expect(isInside("/srv/store", "/srv")).toBe(false);
  });
});
