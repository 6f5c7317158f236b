/**
 * Lambda ARNs (of the shape the definitions' validators check) for `functions`, in a test account.
 *
 * @example
 * const functionArns = testFunctionArns(STAGE_FUNCTIONS); // { ingest: "arn:aws:lambda:...:voxtrail-test-ingest", ... }
 */
export function testFunctionArns<F extends string>(functions: readonly F[]): Record<F, string> {
  return Object.fromEntries(
    functions.map((fn) => [fn, `arn:aws:lambda:us-east-1:123456789012:function:voxtrail-test-${fn}`]),
  ) as Record<F, string>;
}
