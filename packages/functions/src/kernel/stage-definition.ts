import type { ArtifactRef, EventClock, IntendedFlow } from "@voxtrail/core";
import type * as z from "zod/mini";
import type { StageDependencies } from "../dependencies";
import type { Activity } from "./activity-recorder";

/** What the kernel needs of any stage's dependencies (the voicemail and the prompts ones both have it). */
export type KernelDependencies = Pick<
  StageDependencies,
  "store" | "logger" | "compute" | "boundaryPolicy" | "metrics" | "now" | "jobsInFlight" | "interrupt"
>;

/**
 * The dependencies of a stage that needs `K` besides the kernel's: what its Lambda entry point
 * must build, and no more.
 *
 * @example
 * defineStage<StageNeeds<"transcriber" | "language">>()({ ... });
 */
export type StageNeeds<K extends keyof StageDependencies> = KernelDependencies & Pick<StageDependencies, K>;

/** What a stage's code gets for one invocation. */
export interface Invocation<D> {
  /** The dependencies, with a store that refuses every call once the attempt has run out of time. */
  deps: D;
  /** Aborted when the attempt runs out of time, is interrupted, or fails: pass it to every provider call. */
  signal: AbortSignal;
  /** The invocation's clock, `handler.start` marked when the input had been parsed. */
  clock: EventClock;
}

/**
 * What an attempt's code gets: the invocation, the activity its record is made of, and its temp
 * directory.
 */
export interface Attempt<D> extends Invocation<D> {
  activity: Activity;
  /**
   * The attempt's own temp directory, removed with everything in it when the attempt ends
   * (succeeded, failed, timed out or interrupted): every temp file the attempt makes goes here;
   * pass it on to a provider that writes any (`transcribe(wav, { language, signal, tmpDir })`).
   */
  tmpDir: string;
}

/**
 * How an invocation begins, decided by the stage's {@link StageDefinition.open}: the job it works
 * on (a logger key, and the job its activity record belongs to) and either the attempt to record
 * (its inputs, and whatever `open` worked out that `run` needs, as `carry`) or, for an invocation
 * that is no attempt (a duplicate delivery, a rerun with nothing to do), its result. An invocation
 * that works on no job (OpenBatch: a batch is many jobs, each claimed by its own Ingest) is never
 * an attempt: it has its result and no `jobId`.
 */
export type Opening<O, C> =
  | ({
      jobId: string;
      /** More logger keys than `jobId` (e.g. a prompt's id). */
      logKeys?: Record<string, string>;
    } & (
      | {
          inputs: ArtifactRef[];
          /** The name the attempt's records go under, when not the stage's (one per prompt). */
          recordAs?: string;
          /** The steps this attempt may follow in the job's chain, when not the stage's `follows`. */
          follows?: readonly string[];
          /**
           * When the work the attempt completes began, if an earlier invocation began it (ISO): the
           * record covers it from then (a transcription job's read step, from its start).
           */
          startedAt?: string;
          carry: C;
        }
      | { done: O }
    ))
  | { done: O; jobId?: never; logKeys?: never };

/**
 * One stage, defined once: the kernel ({@link stageHandler}) builds its Lambda handler from this.
 * The definition says what the stage is (name, input schema, the data flows its boundary policy
 * must allow, whether it ends the job); its two functions hold only the stage's domain work.
 *
 * @example
 * export const transcribeStage = defineStage<StageDependencies>()({
 *   name: "Transcribe",
 *   input: TranscribeInput,
 *   flows: (deps) => [{ processor: deps.transcriber.processor, kinds: ["normalized-audio", "transcript"] }],
 *   open: (job) => ({ jobId: job.jobId, inputs: [job.normalizedAudio], carry: undefined }),
 *   run: async (job, { deps, activity, signal }) => { ... },
 * });
 */
export interface StageDefinition<D extends KernelDependencies, I, O, C = undefined> {
  /** The stage's name: its activity records', its errors' and its metrics' `stage` dimension. */
  readonly name: string;
  /** The input's schema: a mismatch is `InvalidInput` naming the paths, never the values. */
  readonly input: z.core.$ZodType<I>;
  /** The job ends with this stage: its lineage summary is written after the attempt's record. */
  readonly endsJob?: boolean;
  /**
   * The record names (steps) whose last attempt this stage's first attempt follows in the job's
   * chain, nearest first: the first with a record is the one (see `ActivityRecord.previousRecord`).
   * None for a job's first step.
   */
  readonly follows?: readonly string[];
  /**
   * `false` for a stage that writes no activity record of its own (the prompt failure recorder:
   * the failed attempt has its record already); its `run` gets an activity that goes nowhere.
   * `"failures"` for a step that is recorded only when it fails: its success is part of a later
   * step's record (a transcription job's start, recorded with its read).
   */
  readonly recorded?: false | "failures";
  /** The data flows an attempt intends, checked against the boundary policy before `run`. */
  flows(deps: D, input: I): IntendedFlow[];
  /** Work before the attempt: which job, what it reads, or that there is nothing to do. */
  open(input: I, invocation: Invocation<D>): Opening<O, C> | Promise<Opening<O, C>>;
  /** The attempt's domain work; outputs, processors, timings and measures go on `activity`. */
  run(input: I, attempt: Attempt<D>, carry: C): Promise<O>;
}

/**
 * Types a stage definition for dependencies `D`, inferring the rest.
 *
 * @example
 * const finalizeStage = defineStage<StageDependencies>()({ name: "Finalize", ... });
 */
export function defineStage<D extends KernelDependencies>() {
  return <I, O, C = undefined>(definition: StageDefinition<D, I, O, C>) => definition;
}
