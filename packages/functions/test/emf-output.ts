import { Metrics } from "@aws-lambda-powertools/metrics";

/**
 * Runs `call` and returns the lines it wrote to stdout (where Lambda's EMF goes); a rejection of
 * `call` is dropped: the lines are what a test looks at.
 *
 * @example
 * const emf = (await stdoutOf(() => handler(event, context))).map((line) => JSON.parse(line));
 */
export async function stdoutOf(call: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split("\n").filter(Boolean));
    return true;
  }) as typeof process.stdout.write;
  try {
    await call().catch(() => undefined);
  } finally {
    process.stdout.write = write;
  }
  return lines;
}

/**
 * Powertools Metrics as a stage function in environment `test` builds them (namespace and service
 * `voxtrail`): what it flushes goes to stdout as EMF.
 *
 * @example
 * const { deps } = await testDependencies({ metrics: testMetrics() });
 */
export function testMetrics(): Metrics {
  return new Metrics({
    namespace: "voxtrail",
    serviceName: "voxtrail",
    defaultDimensions: { environment: "test" },
  });
}
