import { LOCAL_FUNCTION_ARNS } from "@voxtrail/local";
import { buildVoicemailDefinition, STAGE_FUNCTIONS, type StageFunction } from "@voxtrail/workflow";
import { UsageError } from "../usage-error";

/** `voxtrail definition voicemail`: prints the ASL JSON the engines run. */
export function definitionCommand(
  positionals: string[],
  options: { "arn-prefix"?: string | undefined },
): string {
  const [name] = positionals;
  if (name !== "voicemail")
    throw new UsageError(`unknown workflow ${JSON.stringify(name ?? "")}: expected "voicemail"`);
  const prefix = options["arn-prefix"];
  const functionArns = prefix
    ? (Object.fromEntries(STAGE_FUNCTIONS.map((fn) => [fn, `${prefix}${fn}`])) as Record<
        StageFunction,
        string
      >)
    : LOCAL_FUNCTION_ARNS;
  return `${JSON.stringify(buildVoicemailDefinition({ functionArns }), null, 2)}\n`;
}
