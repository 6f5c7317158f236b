import {
  isSchemaMismatch,
  ObjectNotFound,
  PROMPT_FORMATS,
  PromptResult,
  type PromptRow,
  primaryLanguage,
  readJson,
  round,
} from "@voxtrail/core";
import { promptKeys } from "@voxtrail/workflow";
import {
  defineStage,
  type KernelDependencies,
  type Opening,
  type StageNeeds,
} from "../kernel/stage-definition";
import { checkedPromptAudio } from "../prompts/prompt-audio-check";
import { type PromptOutcome, SynthesizePromptInput } from "../prompts/prompt-state";
import { storeSynthesis } from "../synthesis-artifact";

/**
 * SynthesizePrompt: speaks one manifest row through the configured synthesizer and writes
 * `prompts/<jobId>/<id>.wav` in the row's format (Amazon Connect's 8 kHz mono mu-law WAV by
 * default), spooled to disk as it streams, then its result object (`results/<id>.json`: status,
 * row hash, audio pointer, duration, ttfb). A prompt whose result already succeeded with the same
 * row hash, and whose audio is still there, is skipped: nothing is written. Audio that cannot be
 * the text spoken (near silent, or too short for its words: `checkedPromptAudio`, measured as it
 * streams) fails the prompt with `PromptAudioImplausible`, and no WAV is written.
 *
 * Each attempt writes its activity record under the name `SynthesizePrompt-<first 16 hex of the
 * row hash>`, so every prompt has its own attempt count however many run at once; its metrics go
 * under the stage's name, `SynthesizePrompt`, one series whatever the manifest. Errors are
 * thrown as named errors: Step Functions retries the transient ones, and the Map's Catch hands the
 * others to RecordPromptFailure.
 */
export const synthesizePromptStage = defineStage<StageNeeds<"synthesizer" | "language">>()({
  name: "SynthesizePrompt",
  follows: ["PreparePrompts"],
  input: SynthesizePromptInput,
  flows: (deps) => [{ processor: deps.synthesizer.processor, kinds: ["prompt-manifest", "prompt-audio"] }],
  open: async ({ jobId, row, rows }, { deps }): Promise<Opening<PromptOutcome, undefined>> => {
    const logKeys = { promptId: row.id };
    if (await alreadyDone(deps, jobId, row)) {
      const done: PromptOutcome = { id: row.id, status: "skipped" };
      return { jobId, logKeys, done };
    }
    return { jobId, logKeys, inputs: [rows], recordAs: promptStage(row), carry: undefined };
  },
  run: async ({ jobId, row }, { deps, activity, clock, signal }): Promise<PromptOutcome> => {
    const format = PROMPT_FORMATS[row.format];
    const language = row.language ?? deps.language;
    activity.processors.push(
      deps.synthesizer.processorFor?.(primaryLanguage(language)) ?? deps.synthesizer.processor,
    );
    const stream = deps.synthesizer.synthesize({
      text: row.text,
      language,
      format,
      signal,
      ...(row.voice ? { voiceId: row.voice } : {}),
    });
    const stored = await storeSynthesis({
      store: deps.store,
      activity,
      clock,
      stream: checkedPromptAudio(stream, format, row.text),
      format,
      kind: "prompt-audio",
      key: promptKeys.audio(jobId, row.id),
    });
    const audio = stored.artifact;
    clock.mark("prompt.durable");
    const audioMs = round(stored.audioMs);
    activity.measures.audioMs = audioMs;
    const streamTimings = stream.timings();
    activity.timings.push(
      clock.timing("synthesize.setup", "handler.start", "stream.start"),
      ...streamTimings,
      clock.timing("synthesize.duration", "handler.start", "prompt.durable"),
    );
    const ttfbMs = streamTimings.find((timing) => timing.name === "synthesize.ttfb")?.ms;
    const result: PromptResult = {
      id: row.id,
      line: row.line,
      rowHash: row.rowHash,
      status: "succeeded",
      audio,
      audioMs,
      ...(ttfbMs === undefined ? {} : { ttfbMs }),
    };
    await deps.store.put(promptKeys.result(jobId, row.id), `${JSON.stringify(result, null, 2)}\n`, {
      contentType: "application/json",
    });
    return { id: row.id, status: "succeeded" };
  },
});

/** The activity records' stage name of one prompt: unique per prompt content. */
export function promptStage(row: Pick<PromptRow, "rowHash">): string {
  return `SynthesizePrompt-${row.rowHash.slice(0, 16)}`;
}

/** Reads a prompt's result object; `undefined` when there is none or it is not one. */
export async function readPromptResult(
  deps: Pick<KernelDependencies, "store">,
  jobId: string,
  id: string,
): Promise<PromptResult | undefined> {
  try {
    return await readJson(deps.store, promptKeys.result(jobId, id), PromptResult);
  } catch (error) {
    if (error instanceof ObjectNotFound || error instanceof SyntaxError || isSchemaMismatch(error)) {
      return undefined;
    }
    throw error;
  }
}

async function alreadyDone(
  deps: Pick<KernelDependencies, "store">,
  jobId: string,
  row: PromptRow,
): Promise<boolean> {
  const result = await readPromptResult(deps, jobId, row.id);
  if (result?.status !== "succeeded" || result.rowHash !== row.rowHash || !result.audio) return false;
  return (await deps.store.head(result.audio.key))?.bytes === result.audio.bytes;
}
