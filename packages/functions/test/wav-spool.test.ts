import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeWav } from "@voxtrail/audio";
import type { AudioFormat } from "@voxtrail/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WavSpool } from "../src/wav-spool";

const TELEPHONY: AudioFormat = { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 };
const PCM16: AudioFormat = { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 };

let parent: string;

beforeAll(async () => {
  parent = await mkdtemp(join(tmpdir(), "voxtrail-spool-test-"));
});

afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

async function spools(): Promise<string[]> {
  return readdir(parent);
}

function chunksOf(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size)
    chunks.push(bytes.subarray(offset, offset + size));
  return chunks;
}

describe("WavSpool", () => {
  it.each([
    ["16-bit PCM", PCM16, 16_000],
    ["mu-law with an odd length (pad byte)", TELEPHONY, 8_001],
  ] as const)("builds the same file as writeWav: %s", async (_, format, length) => {
    const audio = Buffer.from(Array.from({ length }, (_, i) => (i * 37) % 256));
    const spool = await WavSpool.open(format, parent);
    try {
      for (const chunk of chunksOf(audio, 321 - (321 % (format.encoding === "pcm_s16le" ? 2 : 1)))) {
        await spool.write(chunk);
      }
      expect(spool.dataBytes).toBe(length);
      const file = await readFile((await spool.finish()).localFile);
      expect(file.equals(Buffer.from(writeWav(format, audio)))).toBe(true);
    } finally {
      await spool.discard();
    }
    expect(await spools()).toEqual([]);
  });

  it("leaves nothing behind when discarded before it is finished", async () => {
    const spool = await WavSpool.open(PCM16, parent);
    await spool.write(new Uint8Array(640));
    expect(await spools()).toHaveLength(1);
    await spool.discard();
    expect(await spools()).toEqual([]);
  });
});
