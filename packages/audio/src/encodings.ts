import type { AudioEncoding } from "@voxtrail/core";

/**
 * Bytes one sample of one channel takes in each encoding: divide a raw byte count by this (and by
 * the channel count and sample rate) to get a duration.
 *
 * @example
 * const seconds = bytes.length / BYTES_PER_SAMPLE["pcm_mulaw"] / 8000;
 */
export const BYTES_PER_SAMPLE: Readonly<Record<AudioEncoding, number>> = {
  pcm_s16le: 2,
  pcm_f32le: 4,
  pcm_mulaw: 1,
  pcm_alaw: 1,
};
