import { buildCli } from "../../packages/cli/build/cli-build.mjs";

/**
 * A globalSetup of the tiers that run `voxtrail`: builds the CLI from the sources as they are, so
 * no test runs an earlier build (the bin would rebuild a stale one anyway, each process on its own).
 */
export default async function buildTheCli(): Promise<void> {
  await buildCli();
}
