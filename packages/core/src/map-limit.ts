/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping the order of `items`:
 * enough parallelism to hide store or engine latency without opening thousands of files or
 * sockets at once. The one worker pool of the project: jobs, prompt results and lineage reads
 * all go through it.
 *
 * @example
 * const reports = await mapLimit(keys, 32, (key) => readJson(store, key, JobReport));
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
