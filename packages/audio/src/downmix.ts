/**
 * Mixes interleaved multi-channel samples down to mono by averaging each frame's channels
 * (rounded towards negative infinity). Mono input is returned as a copy.
 *
 * @example
 * downmixToMono(new Int16Array([100, 300, -10, -20]), 2); // Int16Array [200, -15]
 */
export function downmixToMono(interleaved: Int16Array, channels: number): Int16Array {
  if (!Number.isInteger(channels) || channels < 1) {
    throw new RangeError(`downmixToMono: channels must be a positive integer, got ${channels}`);
  }
  if (interleaved.length % channels !== 0) {
    throw new RangeError(
      `downmixToMono: ${interleaved.length} samples are not a whole number of ${channels}-channel frames`,
    );
  }
  const mono = new Int16Array(interleaved.length / channels);
  for (let frame = 0; frame < mono.length; frame++) {
    let sum = 0;
    for (let channel = 0; channel < channels; channel++) sum += interleaved[frame * channels + channel] ?? 0;
    mono[frame] = Math.floor(sum / channels);
  }
  return mono;
}
