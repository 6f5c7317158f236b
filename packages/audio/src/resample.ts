import { toInt16 } from "./int16";

/**
 * Half the filter length, counted in periods of the lower of the two rates: 32 gives a transition
 * band of about 8% of that rate with the Kaiser window below.
 */
const HALF_WIDTH = 32;
/** Kaiser window shape: about 80 dB of stopband attenuation. */
const KAISER_BETA = 8;
/** Cutoff as a fraction of the lower rate's Nyquist frequency (the -6 dB point). */
const CUTOFF = 0.9;

/**
 * Changes the sample rate of mono 16-bit audio with a windowed-sinc (Kaiser) polyphase filter:
 * band-limited interpolation when upsampling, and a low-pass at 0.9 times the new Nyquist
 * frequency, applied together with the rate change, when downsampling, so tones above the new
 * Nyquist frequency are removed instead of folding back. Output sample `n` is centred on input
 * time `n * fromRate / toRate` (no delay); the signal is taken as silent outside the input; the
 * output has `Math.round(samples.length * toRate / fromRate)` samples. Each filter phase has unit
 * DC gain. Deterministic: the same input always gives the same output.
 *
 * When the rates are equal the result is a copy of `samples`, never the same array.
 *
 * @throws RangeError when a rate is not a positive integer.
 * @example
 * const wideband = resample(telephony8k, 8000, 16000); // twice as many samples
 */
export function resample(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  checkRate("fromRate", fromRate);
  checkRate("toRate", toRate);
  if (fromRate === toRate) return samples.slice();

  const divisor = gcd(fromRate, toRate);
  const up = toRate / divisor;
  const down = fromRate / divisor;
  const { coefficients, taps, reach } = filterBank(up, down);
  const output = new Int16Array(Math.round((samples.length * toRate) / fromRate));
  const wholeStep = Math.floor(down / up);
  const phaseStep = down % up;

  // Output n sits at input time n * down / up = whole + phase / up; its taps are the inputs
  // whole - reach + 1 .. whole + reach, weighted by that phase's coefficients.
  let first = 1 - reach;
  let phase = 0;
  for (let n = 0; n < output.length; n++) {
    const row = phase * taps;
    const from = Math.max(0, -first);
    const to = Math.min(taps, samples.length - first);
    let sum = 0;
    for (let j = from; j < to; j++) sum += (coefficients[row + j] ?? 0) * (samples[first + j] ?? 0);
    output[n] = toInt16(sum);
    first += wholeStep;
    phase += phaseStep;
    if (phase >= up) {
      phase -= up;
      first += 1;
    }
  }
  return output;
}

/**
 * One set of `taps` coefficients per output phase `p` (input time offset `p / up`), each
 * normalised to sum to 1.
 */
function filterBank(up: number, down: number): { coefficients: Float32Array; taps: number; reach: number } {
  const bandwidth = Math.min(1, up / down);
  const halfWidth = HALF_WIDTH / bandwidth;
  const reach = Math.ceil(halfWidth);
  const taps = 2 * reach;
  const coefficients = new Float32Array(up * taps);
  const row = new Float64Array(taps);
  const windowScale = 1 / besselI0(KAISER_BETA);
  for (let phase = 0; phase < up; phase++) {
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      const distance = phase / up - (j - reach + 1);
      const edge = distance / halfWidth;
      const value =
        Math.abs(edge) >= 1
          ? 0
          : sinc(CUTOFF * bandwidth * distance) *
            besselI0(KAISER_BETA * Math.sqrt(1 - edge * edge)) *
            windowScale;
      row[j] = value;
      sum += value;
    }
    for (let j = 0; j < taps; j++) coefficients[phase * taps + j] = (row[j] ?? 0) / sum;
  }
  return { coefficients, taps, reach };
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const angle = Math.PI * x;
  return Math.sin(angle) / angle;
}

/** The modified Bessel function of the first kind, order 0, by its power series. */
function besselI0(x: number): number {
  const quarterSquare = (x * x) / 4;
  let term = 1;
  let sum = 1;
  for (let k = 1; term > sum * 1e-16; k++) {
    term *= quarterSquare / (k * k);
    sum += term;
  }
  return sum;
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

function checkRate(name: string, rate: number): void {
  if (!Number.isSafeInteger(rate) || rate <= 0) {
    throw new RangeError(`resample: ${name} must be a positive integer number of hertz, got ${rate}`);
  }
}
