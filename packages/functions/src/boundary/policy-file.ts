import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BoundaryPolicy, BoundaryPolicyInvalid } from "@voxtrail/core";

/** The repository's boundary policies, one `<stage>.json` per stage environment. */
export const BOUNDARY_POLICY_DIR = fileURLToPath(
  new URL("../../../../config/boundary-policy/", import.meta.url),
);

/** The stage environment the process runs in: `VOXTRAIL_STAGE`, or `local`. */
export function currentStage(env: NodeJS.ProcessEnv = process.env): string {
  return env.VOXTRAIL_STAGE || "local";
}

/**
 * Reads and checks the boundary policy of a stage environment from `<dir>/<stage>.json`. A missing
 * or malformed policy is `BoundaryPolicyInvalid`: no stage runs without a policy.
 *
 * @example
 * const policy = await loadBoundaryPolicy(currentStage()); // config/boundary-policy/local.json
 */
export async function loadBoundaryPolicy(stage: string, dir = BOUNDARY_POLICY_DIR): Promise<BoundaryPolicy> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(stage)) {
    throw new BoundaryPolicyInvalid(`stage name ${JSON.stringify(stage)} is not a valid policy name`);
  }
  return readBoundaryPolicyFile(join(dir, `${stage}.json`));
}

/** Reads and checks a boundary policy file. */
export async function readBoundaryPolicyFile(file: string): Promise<BoundaryPolicy> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new BoundaryPolicyInvalid(`no boundary policy at ${file}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BoundaryPolicyInvalid(`boundary policy ${file} is not JSON`);
  }
  const parsed = BoundaryPolicy.safeParse(json);
  if (!parsed.success) {
    const paths = parsed.error.issues.map((issue) => issue.path.join(".") || "(root)");
    throw new BoundaryPolicyInvalid(
      `boundary policy ${file} is malformed at: ${[...new Set(paths)].join(", ")}`,
    );
  }
  return parsed.data;
}
