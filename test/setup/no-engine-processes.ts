import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { basename } from "node:path";

/**
 * A setup file of the `unit` tier: starting an engine or the CLI throws, so a test that needs one
 * fails where it is instead of slowing the inner loop down (move it to the tier that names its
 * kind in `test/setup/tiers.ts`). Engines are the recognisers and SphinxTrain's tools, flite's
 * process, moto_server, Chromium; the CLI is `voxtrail` and anything run through tsx. Small system
 * tools (mkfifo, sox, a test's own script) still run.
 */
const ENGINE_COMMAND =
  /^(pocketsphinx|sphinx|bw$|map_adapt|mllr_solve|mllr_transform|moto_server|chromium|tsx$|npx$|sst$)/;
const ENGINE_ARGUMENT = /(voxtrail\.js|flite-child\.mjs|\.wasm|tsx)$/;

type Starter = (...args: unknown[]) => unknown;

function refuseEngines(name: string, original: Starter): Starter {
  return (...args) => {
    const [command, rest] = args;
    const argv = Array.isArray(rest) ? rest.map(String) : [];
    if (ENGINE_COMMAND.test(basename(String(command))) || argv.some((arg) => ENGINE_ARGUMENT.test(arg))) {
      throw new Error(
        `the unit tier starts no engine or CLI (${name} ${basename(String(command))}): ` +
          "name this test file in a slower tier in test/setup/tiers.ts",
      );
    }
    return original(...args);
  };
}

const starters = childProcess as unknown as Record<string, Starter>;
for (const name of ["spawn", "spawnSync", "execFile", "execFileSync", "fork"]) {
  starters[name] = refuseEngines(name, starters[name] as Starter);
}
syncBuiltinESMExports();
