import { resample } from "@voxtrail/audio";

/** A rate whose resampling filter cuts at 0.9 x 6 kHz = 5.4 kHz: above any telephone band. */
const PROBE_RATE = 12000;
/**
 * Largest share of energy above the probe's cutoff that still counts as narrowband. Telephone audio
 * brought up to 16 kHz measures about 1e-8 to 1e-6 (resampler leakage and quantisation); wideband
 * speech about 1e-4 to 1e-2, even from a voice with little high-frequency energy.
 */
const NARROWBAND_MAX_HIGH_SHARE = 1e-5;

/**
 * Whether 16 kHz audio carries almost nothing above 5.4 kHz, as happens when it was upsampled from
 * 8 kHz telephone audio: the energy left after removing everything below 5.4 kHz (a round trip
 * through 12 kHz) is compared with the total. Silence counts as wideband.
 */
export function isNarrowband(samples16k: Int16Array): boolean {
  const low = resample(resample(samples16k, 16000, PROBE_RATE), PROBE_RATE, 16000);
  let high = 0;
  let total = 0;
  for (let i = 0; i < samples16k.length; i++) {
    const sample = samples16k[i] as number;
    const residual = sample - (low[i] as number);
    high += residual * residual;
    total += sample * sample;
  }
  return total > 0 && high / total < NARROWBAND_MAX_HIGH_SHARE;
}
