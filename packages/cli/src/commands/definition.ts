import {
  LOCAL_BATCH_FUNCTION_ARNS,
  LOCAL_FUNCTION_ARNS,
  LOCAL_PROMPT_FUNCTION_ARNS,
} from "@voxtrail/local/local-functions";
import {
  BATCH_FUNCTIONS,
  buildPromptsDefinition,
  buildVoicemailBatchDefinition,
  buildVoicemailDefinition,
  PROMPT_FUNCTIONS,
  STAGE_FUNCTIONS,
  TRANSCRIBERS,
  transcriptionModeOf,
} from "@voxtrail/workflow";
import { UsageError } from "../usage-error";

/** A voicemail state machine's ARN for `definition batch` when none is given. */
const PLACEHOLDER_VOICEMAIL_STATE_MACHINE =
  "arn:aws:states:us-east-1:123456789012:stateMachine:voxtrail-voicemail";

/** `voxtrail definition voicemail|prompts|batch`: prints the ASL JSON the engines run (the cloud form). */
export function definitionCommand(
  positionals: string[],
  options: {
    "arn-prefix"?: string | undefined;
    "state-machine"?: string | undefined;
    concurrency?: string | undefined;
    transcriber?: string | undefined;
  },
): string {
  const [name] = positionals;
  const prefix = options["arn-prefix"];
  const arns = <F extends string>(functions: readonly F[], local: Record<F, string>): Record<F, string> =>
    prefix ? (Object.fromEntries(functions.map((fn) => [fn, `${prefix}${fn}`])) as Record<F, string>) : local;
  if (name === "voicemail") {
    const functionArns = arns(STAGE_FUNCTIONS, LOCAL_FUNCTION_ARNS);
    const transcription = transcriptionModeOf({ transcriber: transcriberOf(options.transcriber) });
    return `${JSON.stringify(buildVoicemailDefinition({ functionArns, transcription }), null, 2)}\n`;
  }
  if (name === "prompts") {
    const functionArns = arns(PROMPT_FUNCTIONS, LOCAL_PROMPT_FUNCTION_ARNS);
    const maxConcurrency = concurrencyOf(options.concurrency);
    return `${JSON.stringify(buildPromptsDefinition({ functionArns, maxConcurrency }), null, 2)}\n`;
  }
  if (name === "batch") {
    const functionArns = arns(BATCH_FUNCTIONS, LOCAL_BATCH_FUNCTION_ARNS);
    const voicemailStateMachineArn = options["state-machine"] ?? PLACEHOLDER_VOICEMAIL_STATE_MACHINE;
    const maxConcurrency = concurrencyOf(options.concurrency);
    const definition = buildVoicemailBatchDefinition({
      functionArns,
      voicemailStateMachineArn,
      maxConcurrency,
    });
    return `${JSON.stringify(definition, null, 2)}\n`;
  }
  throw new UsageError(
    `unknown workflow ${JSON.stringify(name ?? "")}: expected "voicemail", "prompts" or "batch"`,
  );
}

function transcriberOf(value: string | undefined): (typeof TRANSCRIBERS)[number] {
  if (value === undefined) return "local";
  if ((TRANSCRIBERS as readonly string[]).includes(value)) return value as (typeof TRANSCRIBERS)[number];
  throw new UsageError(
    `--transcriber must be one of ${TRANSCRIBERS.join(", ")}, got ${JSON.stringify(value)}`,
  );
}

function concurrencyOf(value: string | undefined): number {
  const concurrency = Number(value ?? "2");
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new UsageError(`--concurrency must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return concurrency;
}
