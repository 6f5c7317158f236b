import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { openTempDir, removeTempDir } from "@voxtrail/functions/kernel";
import { afterEach, describe, expect, test } from "vitest";
import { FliteEngine } from "../../src/flite/flite-engine";
import { FliteFailed, FliteProcess } from "../../src/flite/flite-process";

let dir: string | undefined;

afterEach(async () => {
  if (dir) await removeTempDir(dir);
  dir = undefined;
});

describe("FliteProcess", () => {
  test("speaks its one job as a WAV, and refuses a second", async () => {
    const flite = new FliteProcess();
    expect(flite.ready).toBe(true);
    dir = await openTempDir("flite-test");
    const wav = await flite.speak({ text: "Thanks for calling.", voice: "slt", dir });
    expect(Buffer.from(wav.subarray(0, 4)).toString("latin1")).toBe("RIFF");
    expect(flite.ready).toBe(false);
    const again = await flite.speak({ text: "Again.", voice: "slt", dir }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(FliteFailed);
    expect((again as Error).name).toBe("FliteFailed");
  });

  test("a retired process takes no job, and the refusal does not quote the text", async () => {
    const flite = new FliteProcess();
    flite.retire();
    expect(flite.ready).toBe(false);
    dir = await openTempDir("flite-test");
    const error = await flite
      .speak({ text: "secret words", voice: "slt", dir })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FliteFailed);
    expect((error as Error).message).not.toContain("secret");
  });
});

describe("FliteEngine", () => {
  test("the same text gives the same WAV, call after call", async () => {
    const engine = new FliteEngine();
    const [a, b, c] = await Promise.all([
      engine.synthesizeWav("Hi Maria.", "slt"),
      engine.synthesizeWav("Hi Maria.", "slt"),
      engine.synthesizeWav("Hi Maria.", "rms"),
    ]);
    expect(Buffer.from(a as Uint8Array).equals(Buffer.from(b as Uint8Array))).toBe(true);
    expect(Buffer.from(a as Uint8Array).equals(Buffer.from(c as Uint8Array))).toBe(false);
  });

  test("the process it keeps started does not keep a program alive", async () => {
    const started = performance.now();
    await promisify(execFile)(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        "const { FliteEngine } = await import('@voxtrail/local'); new FliteEngine();",
      ],
      { timeout: 20_000 },
    );
    // The spare waits 30 s for a job before it is ended: the program ended long before.
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
