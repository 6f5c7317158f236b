import type { AslDefinition } from "./asl-definition";
import { functionRetries } from "./retry-policies";
import { DUPLICATE_CHOICE, DUPLICATE_STATE } from "./voicemail-definition";

/** The Lambda functions the prompts workflow calls. */
export const PROMPT_FUNCTIONS = [
  "preparePrompts",
  "synthesizePrompt",
  "recordPromptFailure",
  "writePromptsReport",
] as const;
export type PromptFunction = (typeof PROMPT_FUNCTIONS)[number];

/** Names of the prompts workflow's states. */
export const PROMPT_STATES = {
  prepare: "PreparePrompts",
  map: "SynthesizePrompts",
  synthesize: "SynthesizePrompt",
  recordFailure: "RecordPromptFailure",
  report: "WritePromptsReport",
} as const;

/**
 * Seconds each prompts Task may run before Step Functions fails it with `States.Timeout`. Its
 * Lambda function times out FUNCTION_TIMEOUT_MARGIN_SECONDS sooner (stages.ts,
 * `functionTimeoutSeconds`; function-sizes.ts), so the function's own deadline fires first.
 */
export const PROMPT_TIMEOUT_SECONDS: Record<PromptFunction, number> = {
  preparePrompts: 900,
  synthesizePrompt: 300,
  recordPromptFailure: 30,
  writePromptsReport: 900,
};

/** Inputs of {@link buildPromptsDefinition}. */
export interface PromptsDefinitionOptions {
  functionArns: Record<PromptFunction, string>;
  /** Prompts synthesized at once: what the synthesis endpoint can serve (its capacity). */
  maxConcurrency: number;
  /**
   * Share of Map items that may fail before the Map fails (default 100). Each prompt's failure is
   * already caught and recorded by `RecordPromptFailure`, so an item fails only when recording
   * does; the report then lists its row as `not-run`.
   */
  toleratedFailurePercentage?: number;
}

/** The execution facts PreparePrompts receives from the context object. */
const EXECUTION_PARAMETERS = { "id.$": "$$.Execution.Id", "startTime.$": "$$.Execution.StartTime" };

/**
 * Builds the IVR prompts workflow: `PreparePrompts` (claims the job, reads and validates the
 * manifest, writes the valid rows as `prompts/<jobId>/rows.jsonl` and the bad rows with their
 * line numbers; a Choice after it ends a duplicate delivery, whose job another execution runs or
 * has done, in the `Duplicate` Succeed state) -> `SynthesizePrompts`, a Distributed Map reading rows.jsonl from S3 (ItemReader, JSONL) with
 * `MaxConcurrency` set to the endpoint's capacity and a ResultWriter, running `SynthesizePrompt`
 * per row (transient errors retried; any other failure caught and recorded by
 * `RecordPromptFailure`, so one prompt never stops the others) -> `WritePromptsReport`, which
 * lists the per-prompt result objects from the store (it does not read the Map's output).
 *
 * aws-local-stepfunctions cannot run a Distributed Map: the local runtime runs this definition
 * through `localMapDefinition`.
 *
 * @example
 * const definition = buildPromptsDefinition({ functionArns, maxConcurrency: 8 });
 * JSON.stringify(definition); // the ASL document for aws.sfn.StateMachine
 */
export function buildPromptsDefinition(options: PromptsDefinitionOptions): AslDefinition {
  if (!(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1)) {
    throw new RangeError("maxConcurrency must be a positive integer");
  }
  const retry = functionRetries();
  const arns = options.functionArns;
  return {
    Comment: "voxtrail IVR prompts: validate a manifest, synthesize each prompt, write the batch report.",
    StartAt: PROMPT_STATES.prepare,
    TimeoutSeconds: 86_400,
    States: {
      [PROMPT_STATES.prepare]: {
        Type: "Task",
        Comment:
          "Claims the job; validates every row; writes the valid rows as rows.jsonl and the bad rows with their reasons.",
        Resource: arns.preparePrompts,
        Parameters: { "event.$": "$", execution: EXECUTION_PARAMETERS },
        TimeoutSeconds: PROMPT_TIMEOUT_SECONDS.preparePrompts,
        Retry: retry,
        Next: DUPLICATE_CHOICE,
      },
      [DUPLICATE_CHOICE]: {
        Type: "Choice",
        Comment: "PreparePrompts returns { jobId, duplicate } when another execution owns the job.",
        Choices: [{ Variable: "$.duplicate", IsPresent: true, Next: DUPLICATE_STATE }],
        Default: PROMPT_STATES.map,
      },
      [DUPLICATE_STATE]: {
        Type: "Succeed",
        Comment: "A duplicate delivery: the job is done or running elsewhere; nothing was written.",
      },
      [PROMPT_STATES.map]: {
        Type: "Map",
        Comment: "One SynthesizePrompt per valid row, as many at once as the endpoint can serve.",
        ItemReader: {
          Resource: "arn:aws:states:::s3:getObject",
          ReaderConfig: { InputType: "JSONL" },
          Parameters: { "Bucket.$": "$.rowsLocation.bucket", "Key.$": "$.rowsLocation.key" },
        },
        ItemSelector: { "jobId.$": "$.jobId", "rows.$": "$.rows", "row.$": "$$.Map.Item.Value" },
        ItemProcessor: {
          ProcessorConfig: { Mode: "DISTRIBUTED", ExecutionType: "STANDARD" },
          StartAt: PROMPT_STATES.synthesize,
          States: {
            [PROMPT_STATES.synthesize]: {
              Type: "Task",
              Comment: "Synthesizes one prompt (or skips it when its result says it is done).",
              Resource: arns.synthesizePrompt,
              TimeoutSeconds: PROMPT_TIMEOUT_SECONDS.synthesizePrompt,
              Retry: retry,
              Catch: [
                { ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: PROMPT_STATES.recordFailure },
              ],
              End: true,
            },
            [PROMPT_STATES.recordFailure]: {
              Type: "Task",
              Comment: "Records the prompt's failure as its result object; the other prompts go on.",
              Resource: arns.recordPromptFailure,
              TimeoutSeconds: PROMPT_TIMEOUT_SECONDS.recordPromptFailure,
              Retry: retry,
              End: true,
            },
          },
        },
        MaxConcurrency: options.maxConcurrency,
        ToleratedFailurePercentage: options.toleratedFailurePercentage ?? 100,
        ResultWriter: {
          Resource: "arn:aws:states:::s3:putObject",
          Parameters: { "Bucket.$": "$.rowsLocation.bucket", "Prefix.$": "$.mapResultsPrefix" },
        },
        ResultPath: null,
        Next: PROMPT_STATES.report,
      },
      [PROMPT_STATES.report]: {
        Type: "Task",
        Comment: "Writes prompts/<jobId>/report.json from the per-prompt results and the bad rows.",
        Resource: arns.writePromptsReport,
        TimeoutSeconds: PROMPT_TIMEOUT_SECONDS.writePromptsReport,
        Retry: retry,
        End: true,
      },
    },
  };
}
