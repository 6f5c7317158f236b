/** Test signals and measurements. */

/** `seconds` of a sine at `frequency` Hz, amplitude `amplitude`, sampled at `sampleRate`. */
export function sine(frequency: number, sampleRate: number, seconds: number, amplitude = 10000): Int16Array {
  const samples = new Int16Array(Math.round(sampleRate * seconds));
  for (let n = 0; n < samples.length; n++) {
    samples[n] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * n) / sampleRate));
  }
  return samples;
}

/** Root mean square of `samples[from..to)`. */
export function rms(samples: Int16Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let n = from; n < to; n++) sum += (samples[n] ?? 0) ** 2;
  return Math.sqrt(sum / (to - from));
}

/** Sign changes from negative to non-negative in `samples[from..to)`. */
export function risingZeroCrossings(samples: Int16Array, from = 0, to = samples.length): number {
  let count = 0;
  for (let n = from + 1; n < to; n++) if ((samples[n - 1] ?? 0) < 0 && (samples[n] ?? 0) >= 0) count++;
  return count;
}

/** Amplitude of the `frequency` component of `samples` (a single DFT bin, Goertzel style). */
export function toneAmplitude(samples: Int16Array, frequency: number, sampleRate: number): number {
  let re = 0;
  let im = 0;
  for (let n = 0; n < samples.length; n++) {
    const angle = (2 * Math.PI * frequency * n) / sampleRate;
    re += (samples[n] ?? 0) * Math.cos(angle);
    im -= (samples[n] ?? 0) * Math.sin(angle);
  }
  return (2 * Math.hypot(re, im)) / samples.length;
}
