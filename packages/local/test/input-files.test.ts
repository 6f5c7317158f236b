import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectInputFiles } from "../src/input-files";

describe("collectInputFiles: what a directory of voicemails contributes", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "voxtrail-inputs-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("never walks into the run's own store, so a second run of `.` finds only the caller's files", async () => {
    await writeFile(join(dir, "001.wav"), "a");
    await mkdir(join(dir, ".voxtrail", "incoming", "voicemail"), { recursive: true });
    await writeFile(join(dir, ".voxtrail", "incoming", "voicemail", "001.wav"), "a");
    await mkdir(join(dir, ".voxtrail", "artifacts", "vm-1"), { recursive: true });
    await writeFile(join(dir, ".voxtrail", "artifacts", "vm-1", "reply.wav"), "r");
    const files = await collectInputFiles([dir], { exclude: [join(dir, ".voxtrail")] });
    expect(files.map((f) => f.name)).toEqual([`${basename(dir)}/001.wav`]);
    // Without the exclusion the store's copies are taken for voicemails (the bug this guards).
    expect((await collectInputFiles([dir])).map((f) => f.name)).toContain(
      `${basename(dir)}/.voxtrail/artifacts/vm-1/reply.wav`,
    );
  });

  it("never walks into any folder that holds a voxtrail store, and refuses a store named as input", async () => {
    await writeFile(join(dir, "001.wav"), "a");
    const other = join(dir, "last-week-store");
    for (const folder of [".meta", ".versions", "incoming/voicemail", "artifacts/vm-2"]) {
      await mkdir(join(other, folder), { recursive: true });
    }
    await writeFile(join(other, "incoming", "voicemail", "002.wav"), "b");
    await writeFile(join(other, "artifacts", "vm-2", "reply.wav"), "r");
    // A folder with only one of the two is no store: its voicemails are taken.
    await mkdir(join(dir, "calls", ".meta"), { recursive: true });
    await writeFile(join(dir, "calls", "003.wav"), "c");
    const files = await collectInputFiles([dir]);
    expect(files.map((f) => f.name).sort()).toEqual([
      `${basename(dir)}/001.wav`,
      `${basename(dir)}/calls/003.wav`,
    ]);
    await expect(collectInputFiles([other])).rejects.toThrow(
      "is a voxtrail store, not a folder of voicemails",
    );
  });

  it("names files by their path from the argument's parent, so two directories' 001.wav never collide", async () => {
    for (const day of ["mon", "tue"]) {
      await mkdir(join(dir, day, "late"), { recursive: true });
      await writeFile(join(dir, day, "001.wav"), day);
      await writeFile(join(dir, day, "late", "002.wav"), day);
    }
    const files = await collectInputFiles([join(dir, "mon"), join(dir, "tue")]);
    expect(files.map((f) => f.name)).toEqual([
      "mon/001.wav",
      "mon/late/002.wav",
      "tue/001.wav",
      "tue/late/002.wav",
    ]);
    // A file named on its own is named by itself; the same name twice is still refused.
    expect((await collectInputFiles([join(dir, "mon", "001.wav")])).map((f) => f.name)).toEqual(["001.wav"]);
    await expect(
      collectInputFiles([join(dir, "mon", "001.wav"), join(dir, "tue", "001.wav")]),
    ).rejects.toThrow(/would both be uploaded as 001\.wav: rename one/);
  });

  it("follows symbolic links to files and directories, ends a link loop, and skips dangling links", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "voxtrail-inputs-target-"));
    try {
      await writeFile(join(elsewhere, "linked.wav"), "l");
      await mkdir(join(elsewhere, "more"));
      await writeFile(join(elsewhere, "more", "deep.wav"), "d");
      await symlink(join(elsewhere, "linked.wav"), join(dir, "linked.wav"));
      await symlink(join(elsewhere, "more"), join(dir, "more"));
      await symlink(dir, join(dir, "loop"));
      await symlink(join(elsewhere, "gone.wav"), join(dir, "gone.wav"));
      const files = await collectInputFiles([dir]);
      expect(files.map((f) => f.name)).toEqual([
        `${basename(dir)}/linked.wav`,
        `${basename(dir)}/more/deep.wav`,
      ]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it("skips what is not a regular file, such as a FIFO named like a voicemail, instead of blocking on it", async () => {
    await writeFile(join(dir, "good.wav"), "g");
    execFileSync("mkfifo", [join(dir, "pipe.wav")]);
    expect((await collectInputFiles([dir])).map((f) => f.name)).toEqual([`${basename(dir)}/good.wav`]);
    // Named, it is taken: the run refuses it alone (InputNotRegularFile), without reading it.
    expect((await collectInputFiles([join(dir, "pipe.wav")])).map((f) => f.name)).toEqual(["pipe.wav"]);
  });
});
