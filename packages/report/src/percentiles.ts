/** The distribution of one figure: how many samples, three percentiles and the largest. */
export interface Distribution {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * The `p`-th percentile of `sorted` (ascending) by the nearest-rank method: the smallest sample
 * such that at least `p` percent of the samples are at or below it, i.e. the sample at rank
 * `ceil(p / 100 * n)`. Always a value that was measured; never interpolated, never an average.
 *
 * @example
 * nearestRank([10, 20, 30, 40], 50); // 20
 * nearestRank([10, 20, 30, 40], 95); // 40
 */
export function nearestRank(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError("no samples");
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile ${p} is outside (0, 100]`);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1] as number;
}

/** Count, p50, p95, p99 and max of raw samples (nearest rank); `undefined` when there are none. */
export function distribution(samples: readonly number[]): Distribution | undefined {
  if (samples.length === 0) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: nearestRank(sorted, 50),
    p95: nearestRank(sorted, 95),
    p99: nearestRank(sorted, 99),
    max: sorted[sorted.length - 1] as number,
  };
}
