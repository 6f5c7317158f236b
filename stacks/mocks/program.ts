/**
 * Evaluates sst.config.ts's `run()` under Pulumi mocks, the way `sst deploy` evaluates it but
 * without AWS or the Pulumi engine: bundled with the config by packages/operator/src/rehearsal/evaluate-stacks.ts much
 * as the CLI bundles it (see there for the differences), then run with node.
 * Writes an {@link Evaluation} as JSON to the file named by VOXTRAIL_MOCK_OUT.
 */
import { writeFileSync } from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { awsMocks } from "./aws-mocks";
import { startCliRpcStub } from "./cli-rpc-stub";
import type { Evaluation, RegisteredResource } from "./evaluation";

/** sst.config.ts's default export, as `$config` returns it. */
interface SstConfig {
  app(input: { stage: string }): Record<string, unknown>;
  run(): Promise<Record<string, unknown> | undefined>;
}

/**
 * Sets the mocks and `$app` from the config's `app()` (the bundle's banner set `$cli` and
 * `$dev`), then runs the program with sst's runner, waiting for every registration.
 */
export async function evaluate(
  run: (program: () => Promise<unknown>) => Promise<Record<string, unknown>>,
  config: SstConfig,
): Promise<void> {
  const stage = process.env.VOXTRAIL_MOCK_STAGE ?? "ci";
  const out = process.env.VOXTRAIL_MOCK_OUT;
  if (!out) throw new Error("VOXTRAIL_MOCK_OUT is required");
  const stub = await startCliRpcStub();
  process.env.SST_SERVER = stub.url;
  const resources: RegisteredResource[] = [];
  await pulumi.runtime.setMocks(awsMocks(resources), "voxtrail", stage, false);

  const globals = globalThis as Record<string, unknown>;
  globals.$app = { providers: {}, ...config.app({ stage }), stage };
  // The Pulumi program's root: the stack resource every resource hangs under, as in `pulumi up`.
  const outputs = await pulumi.runtime.runInPulumiStack(() => run(() => config.run()));
  await pulumi.runtime.disconnect();
  const resolved = await new Promise((resolve) => pulumi.output(outputs ?? {}).apply(resolve));
  const evaluation: Evaluation = { resources, rpc: stub.calls, outputs: resolved };
  writeFileSync(out, JSON.stringify(evaluation));
  stub.close();
}
