import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeDirectory } from "../src/store-option";

describe("--store", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "voxtrail-store-option-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("takes a directory, or a path not created yet, as an absolute path", () => {
    expect(storeDirectory(dir)).toBe(dir);
    expect(storeDirectory(join(dir, "new"))).toBe(join(dir, "new"));
  });

  it("refuses a file with a named usage error", async () => {
    const file = join(dir, "calls.wav");
    await writeFile(file, "RIFF");
    expect(() => storeDirectory(file)).toThrow(
      expect.objectContaining({ name: "UsageError", message: expect.stringContaining("is not a directory") }),
    );
  });
});
