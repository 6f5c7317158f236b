import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { encodeSamples, TRANSCRIPTION_FORMAT, writeWav } from "@voxtrail/audio";

/**
 * Where property tests put their stores: a RAM-backed directory where there is one. The directory
 * store flushes every write to disk, and on disk those flushes take most of a job's time.
 */
export const RAM_TEMP_ROOT = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();

/** A caller's voicemail on disk, and the sha256 of its bytes. */
export interface Caller {
  path: string;
  sha256: string;
}

/**
 * Writes `seconds` of a `hz` tone as a 16 kHz mono 16-bit WAV: one distinct voicemail per caller
 * (a different length also gives the simulated transcriber's words different timings, so the
 * transcripts differ too).
 *
 * @example
 * const caller = await writeTone(join(dir, "caller-220.wav"), 220);
 */
export async function writeTone(path: string, hz: number, seconds = 0.25): Promise<Caller> {
  const { sampleRate } = TRANSCRIPTION_FORMAT;
  const samples = Int16Array.from({ length: Math.round(sampleRate * seconds) }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * hz * i) / sampleRate)),
  );
  const wav = writeWav(TRANSCRIPTION_FORMAT, encodeSamples(samples, "pcm_s16le"));
  await writeFile(path, wav);
  return { path, sha256: sha256Of(wav) };
}

/** Hex sha256 of `bytes`. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
