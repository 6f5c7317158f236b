/**
 * Writes the small entries of the hostile-input corpus under fixtures/bad/: malformed, unsupported
 * or unusual WAV files a voicemail system may send, each a few kilobytes at most. The large or
 * spoken entries (48 kHz stereo float, A-law, audio beyond the length limit, a voicemail that tries
 * to instruct the reasoner) are made at test time by `test/hostile/generated-entries.ts`, so no
 * large binary is committed. Deterministic: running it again writes the same bytes.
 *
 *   npx tsx scripts/make-bad-fixtures.ts
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";

/** Where the committed corpus lives. */
export const BAD_FIXTURES_DIR = fileURLToPath(new URL("../fixtures/bad", import.meta.url));

const RATE = 8000;

/** `ms` of a 440 Hz tone at 8 kHz, at a quarter of full scale. */
export function tone(ms: number): Int16Array {
  return Int16Array.from({ length: (RATE * ms) / 1000 }, (_, n) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 440 * n) / RATE)),
  );
}

/** A well-formed 8 kHz mono mu-law WAV holding `samples`: what a telephone network delivers. */
export function mulawWav(samples: Int16Array): Uint8Array {
  return writeWav({ encoding: "pcm_mulaw", sampleRate: RATE, channels: 1 }, encodeMuLaw(samples));
}

/** The fields of a plain (16-byte) fmt chunk; block align and byte rate follow from them. */
export interface WavFields {
  /** WAVE format tag: 1 PCM, 3 IEEE float, 6 A-law, 7 mu-law. */
  tag: number;
  bits: number;
  channels?: number;
  sampleRate?: number;
}

/**
 * A canonical 44-byte-header WAV written byte by byte, so that formats and sizes `writeWav` refuses
 * (8-bit PCM, stereo, a declared data size the file does not hold) can be described exactly.
 */
export function wavWithFormat(
  { tag, bits, channels = 1, sampleRate = RATE }: WavFields,
  data: Uint8Array,
  declaredDataBytes = data.length,
): Uint8Array {
  const bytes = new Uint8Array(44 + data.length);
  const view = new DataView(bytes.buffer);
  const blockAlign = (bits / 8) * channels;
  bytes.set(Buffer.from("RIFF"), 0);
  view.setUint32(4, Math.min(0xffffffff, 36 + declaredDataBytes), true);
  bytes.set(Buffer.from("WAVEfmt "), 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, tag, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * blockAlign, true);
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, bits, true);
  bytes.set(Buffer.from("data"), 36);
  view.setUint32(40, declaredDataBytes, true);
  bytes.set(data, 44);
  return bytes;
}

/** The committed corpus: file name (relative to fixtures/bad/) -> bytes. */
export function smallBadEntries(): Record<string, Uint8Array> {
  const good = mulawWav(tone(600));
  return {
    "empty.wav": new Uint8Array(0),
    // A valid 16-bit PCM header whose data chunk holds nothing.
    "zero-length-data.wav": wavWithFormat({ tag: 1, bits: 16 }, new Uint8Array(0)),
    // The first 30 bytes of a valid file: the fmt chunk is cut off.
    "truncated-header.wav": good.subarray(0, 30),
    // An Ogg page header where RIFF/WAVE should be.
    "wrong-magic.wav": Uint8Array.from(
      Buffer.from("OggS\u0000\u0002 not a wave file at all, padding", "latin1"),
    ),
    // The data chunk (and RIFF size) declare ~4 GB; 800 bytes are present.
    "huge-declared-size.wav": wavWithFormat({ tag: 7, bits: 8 }, encodeMuLaw(tone(100)), 0xfffffff0),
    // 8-bit unsigned PCM: a real format, not one the pipeline decodes.
    "pcm-8bit.wav": wavWithFormat(
      { tag: 1, bits: 8 },
      Uint8Array.from(tone(250), (sample) => 128 + (sample >> 8)),
    ),
    // Three seconds of digital silence: a caller who said nothing.
    "silence.wav": mulawWav(new Int16Array(RATE * 3)),
    // Valid audio under names that stress key handling.
    "keys/two..dots..wav": good,
    "keys/with  spaces .wav": good,
    "keys/ünïcødé 日本語 ☎.wav": good,
  };
}

/** Writes the committed corpus into `dir`. */
export async function writeSmallBadEntries(dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [name, bytes] of Object.entries(smallBadEntries())) {
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, bytes);
    written.push(name);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = await writeSmallBadEntries(BAD_FIXTURES_DIR);
  process.stdout.write(`wrote ${written.length} entries under ${BAD_FIXTURES_DIR}\n`);
}
