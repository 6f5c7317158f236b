import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AudioEncoding } from "@voxtrail/core";
import { afterAll, describe, expect, it } from "vitest";
import { decodeMono16, encodeSamples, parseWav, writeWav } from "../src/index";
import { invalidAudioMessage } from "./invalid-audio";
import { sine } from "./signals";

const soxInstalled = spawnSync("sox", ["--version"]).status === 0;
const title = soxInstalled
  ? "cross-check with sox"
  : "cross-check with sox (skipped: sox is not installed on this machine)";

describe.skipIf(!soxInstalled)(title, () => {
  const directory = mkdtempSync(join(tmpdir(), "voxtrail-audio-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  function run(command: string, args: string[]): Buffer {
    const result = spawnSync(command, args);
    if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr}`);
    return result.stdout;
  }

  function soxi(file: string, flag: string): string {
    return run("soxi", [flag, file]).toString().trim();
  }

  const cases: Array<[AudioEncoding, string, string]> = [
    ["pcm_s16le", "Signed Integer PCM", "16"],
    ["pcm_f32le", "Floating Point PCM", "32"],
    ["pcm_mulaw", "u-law", "8"],
    ["pcm_alaw", "A-law", "8"],
  ];

  it.each(cases)("sox reads our %s WAV header (%s, %s-bit)", (encoding, soxEncoding, bits) => {
    const samples = sine(440, 8000, 0.25).subarray(0, 1999); // odd count: exercises the pad byte
    const file = join(directory, `ours-${encoding}.wav`);
    writeFileSync(
      file,
      writeWav({ encoding, sampleRate: 8000, channels: 1 }, encodeSamples(samples, encoding)),
    );
    expect(soxi(file, "-e")).toBe(soxEncoding);
    expect(soxi(file, "-b")).toBe(bits);
    expect(soxi(file, "-r")).toBe("8000");
    expect(soxi(file, "-c")).toBe("1");
    expect(soxi(file, "-s")).toBe("1999");
  });

  it.each([
    ["pcm_mulaw", "u-law"],
    ["pcm_alaw", "a-law"],
  ] as const)("decodes %s exactly as sox does", (encoding, soxEncoding) => {
    const file = join(directory, `sox-${encoding}.wav`);
    run("sox", ["-n", "-r", "8000", "-e", soxEncoding, "-b", "8", file, "synth", "0.5", "sine", "300-3000"]);
    const ours = decodeMono16(readFileSync(file)).samples;
    const raw = run("sox", [file, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-"]);
    const theirs = new Int16Array(raw.buffer, raw.byteOffset, raw.length / 2);
    expect(ours).toEqual(theirs);
  });

  it.each([
    [["-e", "signed-integer", "-b", "16"], "pcm_s16le", 1],
    [["-e", "signed-integer", "-b", "16", "-c", "2"], "pcm_s16le", 2],
    [["-e", "floating-point", "-b", "32"], "pcm_f32le", 1],
    [["-e", "u-law", "-b", "8"], "pcm_mulaw", 1],
    [["-e", "a-law", "-b", "8", "-c", "2"], "pcm_alaw", 2],
  ] as const)("parses what sox writes with %j", (options, encoding, channels) => {
    const file = join(directory, `sox-${options.join("")}.wav`);
    run("sox", ["-n", "-r", "11025", ...options, file, "synth", "0.2", "sine", "440"]);
    const info = parseWav(readFileSync(file));
    expect(info).toMatchObject({ encoding, channels, sampleRate: 11025 });
    expect(info.dataBytes / (info.bitsPerSample / 8) / channels).toBe(Number(soxi(file, "-s")));
  });

  it("rejects sox's 24-bit WAVE_FORMAT_EXTENSIBLE output by its subformat", () => {
    const file = join(directory, "sox-24.wav");
    run("sox", ["-n", "-r", "16000", "-b", "24", file, "synth", "0.1", "sine", "440"]);
    expect(invalidAudioMessage(() => parseWav(readFileSync(file)))).toMatch(/^24-bit PCM is not supported/);
  });
});
