/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `ms` to one decimal place. */
export function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}
