/** Milliseconds as people read them: `842 ms`, `12.4 s`. */
export function formatMs(ms: number): string {
  if (ms === 0) return "0 ms";
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(1)} ms`;
}

/** A byte count: `512 B`, `41.3 kB`, `2.1 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (bytes >= 1000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${bytes} B`;
}

/** `a` or `a–b`. */
export function formatRange(range: { min: number; max: number }, format: (n: number) => string): string {
  return range.min === range.max ? format(range.min) : `${format(range.min)}–${format(range.max)}`;
}
