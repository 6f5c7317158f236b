/** Largest signed 16-bit sample value. */
export const INT16_MAX = 32767;
/** Smallest signed 16-bit sample value. */
export const INT16_MIN = -32768;

/**
 * Rounds `value` to the nearest integer and saturates it to the signed 16-bit range, so that
 * storing it in an `Int16Array` never wraps around; NaN becomes 0.
 */
export function toInt16(value: number): number {
  if (value >= INT16_MAX) return INT16_MAX;
  if (value <= INT16_MIN) return INT16_MIN;
  return Math.round(value) || 0;
}
