import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeNewFile } from "../src/new-file";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "voxtrail-new-file-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeNewFile", () => {
  it.each([
    ["text, flushed", "héllo", true],
    ["bytes, not flushed", new Uint8Array([1, 2, 3]), false],
    ["bytes over 1 MiB (written through the thread pool)", new Uint8Array((1 << 20) + 3).fill(7), true],
  ] as const)("writes %s", async (_, content, flush) => {
    const file = path.join(dir, `${Math.random()}`);
    await writeNewFile(file, content, flush);
    expect((await readFile(file)).equals(Buffer.from(content as Uint8Array | string))).toBe(true);
  });

  it("replaces a longer file's content whole", async () => {
    const file = path.join(dir, "longer");
    await writeFile(file, "a longer content");
    await writeNewFile(file, "short", true);
    expect(await readFile(file, "utf8")).toBe("short");
  });

  it("rejects, rather than throws, when the directory is missing", async () => {
    const written = writeNewFile(path.join(dir, "missing", "file"), "x", true);
    await expect(written).rejects.toMatchObject({ code: "ENOENT" });
  });
});
