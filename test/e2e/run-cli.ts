import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ObjectCreatedEvent, type SourceIdentity, sourceIdentityOf } from "@voxtrail/workflow";
import { expect } from "vitest";
import { motoCliEnvironment } from "../setup/aws";
import type { StageStandIn } from "../support/stage-stand-in";

const BIN = fileURLToPath(new URL("../../packages/cli/bin/voxtrail.js", import.meta.url));

/** A `voxtrail` child process: what it has printed so far, and its exit code once it ends. */
export interface CliProcess {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number>;
}

/**
 * Starts the `voxtrail` command as a user would, with extra environment variables (and in `cwd`,
 * when given), collecting its output as it comes.
 */
export function spawnCli(args: string[], env: Record<string, string> = {}, cwd?: string): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
    ...(cwd ? { cwd } : {}),
  });
  const output = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? -1));
  });
  return { child, output, exited };
}

/**
 * Runs the `voxtrail` command as a user would, with extra environment variables (and in `cwd`,
 * when given), and collects its exit code and output.
 */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = spawnCli(args, env, cwd);
  const code = await run.exited;
  return { code, ...run.output };
}

/**
 * Runs `voxtrail COMMAND --stage STAGE ...args` with AWS pointed at moto, as the stage tests do.
 *
 * @example
 * const { code, stdout } = await runOnStage("prompts", standIn.stage, "menu.csv", "--json");
 */
export function runOnStage(
  command: "run" | "prompts",
  stage: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli([command, "--stage", stage, ...args], motoCliEnvironment());
}

/**
 * Runs `voxtrail COMMAND --stage` on `path`, whose execution the stand-in stops, and checks that
 * the command failed and that the stand-in stopped the execution of the upload under `key`.
 * Resolves to the command's output and the upload's identity, as its execution's event names it.
 *
 * @example
 * const { stdout, source } = await runStopped(standIn, "run", path, keys.incomingVoicemail("hang-up.wav"));
 */
export async function runStopped(
  standIn: StageStandIn,
  command: "run" | "prompts",
  path: string,
  key: string,
): Promise<{ stdout: string; source: SourceIdentity }> {
  const { code, stdout, stderr } = await runOnStage(command, standIn.stage, path);
  expect(code, stderr).toBe(1);
  const handled = await standIn.handled(key);
  expect(handled?.action).toBe("stop");
  return { stdout, source: sourceIdentityOf(ObjectCreatedEvent.parse(handled?.event)) };
}
