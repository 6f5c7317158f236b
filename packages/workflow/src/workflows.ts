import { JobReport, PromptsReport } from "@voxtrail/core";
import type * as z from "zod/mini";
import type { AslDefinition } from "./asl-definition";
import {
  BATCH_FUNCTION_SIZES,
  FUNCTION_SIZES,
  type FunctionSize,
  PROMPT_FUNCTION_SIZES,
} from "./function-sizes";
import { jobIdFor, type SourceIdentity } from "./job-id";
import { BATCH_INCOMING_PREFIX, keys, VOICEMAIL_INCOMING_PREFIX } from "./key-layout";
import { buildPromptsDefinition, PROMPT_FUNCTIONS, type PromptFunction } from "./prompts-definition";
import { PROMPTS_INCOMING_PREFIX, promptKeys, promptsJobIdFor } from "./prompts-layout";
import {
  type EventPattern,
  promptsRulePattern,
  voicemailBatchRulePattern,
  voicemailRulePattern,
} from "./rule-pattern";
import { STAGE_FUNCTIONS, type StageFunction } from "./stages";
import {
  BATCH_FUNCTIONS,
  type BatchFunction,
  buildVoicemailBatchDefinition,
} from "./voicemail-batch-definition";
import { buildVoicemailDefinition, type TranscriptionMode } from "./voicemail-definition";

/**
 * What one workflow is, to every piece of code that deploys, runs or follows it: its Lambda
 * functions (each with its entry file and size), where an upload starts it, the job an upload maps
 * to, and where and in what shape its report lands. The stacks, the local runtime and the CLI
 * follower are written once over this; a new workflow costs a descriptor.
 *
 * @example
 * const { functions, rulePattern } = WORKFLOWS.prompts;
 * rulePattern("voxtrail-dev-bucket"); // starts the prompts workflow on uploads under incoming/prompts/
 */
export interface Workflow<F extends string> {
  /** The state machine's name suffix: `<app>-<stage>-<name>`. */
  readonly name: string;
  /** The Lambda functions its Task states invoke, in order. */
  readonly functions: readonly F[];
  /** Each function's Lambda entry point: `packages/functions/src/lambda/<file>.ts`. */
  readonly entryFiles: Readonly<Record<F, string>>;
  /** Each function's memory and timeout. */
  readonly sizes: Readonly<Record<F, FunctionSize>>;
  /** The prefix under which an arriving object starts the workflow. */
  readonly incomingPrefix: string;
  /** The EventBridge rule pattern that starts the workflow in `bucket`. */
  rulePattern(bucket: string): EventPattern;
  /** Builds its ASL document (what it needs differs per workflow: function ARNs, concurrency). */
  readonly definition: (...args: never[]) => AslDefinition;
}

/** A workflow whose upload is one job with one report (voicemail, prompts). */
export interface JobWorkflow<F extends string, R extends z.ZodMiniType = z.ZodMiniType> extends Workflow<F> {
  /** The job an upload maps to: the same upload, the same job, whichever engine runs it. */
  jobIdFor(source: SourceIdentity): string;
  /** Where the job's report lands: the job's last durable write. */
  reportKey(jobId: string): string;
  /** The report's schema. */
  readonly report: R;
}

/** The function names of workflow `W`. */
export type FunctionOf<W> = W extends Workflow<infer F> ? F : never;

/**
 * The voicemail workflow: Ingest -> Transcribe -> Reason -> Synthesize -> Finalize, the failure
 * recorder, one job per voicemail, `reports/<jobId>.json`.
 */
export const VOICEMAIL_WORKFLOW = {
  name: "voicemail",
  functions: STAGE_FUNCTIONS,
  entryFiles: {
    ingest: "ingest",
    transcribe: "transcribe",
    reason: "reason",
    synthesize: "synthesize",
    finalize: "finalize",
    recordFailure: "record-failure",
  },
  sizes: FUNCTION_SIZES,
  incomingPrefix: VOICEMAIL_INCOMING_PREFIX,
  rulePattern: voicemailRulePattern,
  jobIdFor,
  reportKey: keys.report,
  report: JobReport,
  /** The ASL document for `functionArns`, Transcribe running as `transcription` says. */
  definition: (
    functionArns: Record<StageFunction, string>,
    transcription: TranscriptionMode = "in-function",
  ): AslDefinition => buildVoicemailDefinition({ functionArns, transcription }),
} as const satisfies JobWorkflow<StageFunction>;

/**
 * The IVR prompts workflow: PreparePrompts -> a Distributed Map of SynthesizePrompt (failures to
 * RecordPromptFailure) -> WritePromptsReport, one job per manifest, `prompts/<jobId>/report.json`.
 */
export const PROMPTS_WORKFLOW = {
  name: "prompts",
  functions: PROMPT_FUNCTIONS,
  entryFiles: {
    preparePrompts: "prepare-prompts",
    synthesizePrompt: "synthesize-prompt",
    recordPromptFailure: "record-prompt-failure",
    writePromptsReport: "write-prompts-report",
  },
  sizes: PROMPT_FUNCTION_SIZES,
  incomingPrefix: PROMPTS_INCOMING_PREFIX,
  rulePattern: promptsRulePattern,
  jobIdFor: promptsJobIdFor,
  reportKey: promptKeys.report,
  report: PromptsReport,
  /** The ASL document for `functionArns`, synthesizing `maxConcurrency` prompts at once. */
  definition: (functionArns: Record<PromptFunction, string>, maxConcurrency: number): AslDefinition =>
    buildPromptsDefinition({ functionArns, maxConcurrency }),
} as const satisfies JobWorkflow<PromptFunction>;

/**
 * The voicemail batch workflow: a manifest of voicemail keys under `incoming/batches/` runs the
 * voicemail workflow once per key. Its one function, OpenBatch, decodes the manifest's key from
 * the S3 event for the Map's ItemReader.
 */
export const BATCH_WORKFLOW = {
  name: "voicemail-batch",
  functions: BATCH_FUNCTIONS,
  entryFiles: { openBatch: "open-batch" },
  sizes: BATCH_FUNCTION_SIZES,
  incomingPrefix: BATCH_INCOMING_PREFIX,
  rulePattern: voicemailBatchRulePattern,
  /**
   * The ASL document opening the manifest with `functionArns` and running `voicemailStateMachineArn`
   * per key, `maxConcurrency` at once.
   */
  definition: (
    functionArns: Record<BatchFunction, string>,
    voicemailStateMachineArn: string,
    maxConcurrency: number,
  ): AslDefinition =>
    buildVoicemailBatchDefinition({ functionArns, voicemailStateMachineArn, maxConcurrency }),
} as const satisfies Workflow<BatchFunction>;

/** Every workflow, by name. */
export const WORKFLOWS = {
  voicemail: VOICEMAIL_WORKFLOW,
  prompts: PROMPTS_WORKFLOW,
  batch: BATCH_WORKFLOW,
} as const;

/** Every workflow's functions: what a stage deploys for its workflows. */
export type WorkflowFunction = FunctionOf<(typeof WORKFLOWS)[keyof typeof WORKFLOWS]>;

/** {@link WorkflowFunction}, as a list, in {@link WORKFLOWS} order. */
export const WORKFLOW_FUNCTIONS: readonly WorkflowFunction[] = Object.values(WORKFLOWS).flatMap(
  (workflow) => workflow.functions,
);
