import type { StageFunction } from "@voxtrail/workflow";
import type { z } from "zod";
import type { StageDependencies } from "./dependencies";
import { finalize } from "./handlers/finalize";
import { ingest } from "./handlers/ingest";
import { reason } from "./handlers/reason";
import { recordFailure } from "./handlers/record-failure";
import { synthesize } from "./handlers/synthesize";
import { transcribe } from "./handlers/transcribe";
import { type StageHandler, stageHandler } from "./middleware/middy";
import {
  FinalizeInput,
  IngestInput,
  ReasonInput,
  RecordFailureInput,
  SynthesizeInput,
  TranscribeInput,
} from "./state";

/**
 * The Lambda handler of every stage function, built over one set of dependencies. Lambda entry
 * points export one of these; the local runtime maps each Task state to the same handler.
 *
 * @example
 * const handlers = createStageHandlers(deps);
 * await handlers.ingest(event, context);
 */
export function createStageHandlers(deps: StageDependencies): Record<StageFunction, StageHandler<unknown>> {
  const handler = <I, O>(stage: string, schema: z.ZodType<I>, run: (input: I) => Promise<O>) =>
    stageHandler(deps.logger, stage, schema, run, deps.metrics);
  return {
    ingest: handler("Ingest", IngestInput, (input) => ingest(deps, input)),
    transcribe: handler("Transcribe", TranscribeInput, (input) => transcribe(deps, input)),
    reason: handler("Reason", ReasonInput, (input) => reason(deps, input)),
    synthesize: handler("Synthesize", SynthesizeInput, (input) => synthesize(deps, input)),
    finalize: handler("Finalize", FinalizeInput, (input) => finalize(deps, input)),
    recordFailure: handler("RecordFailure", RecordFailureInput, (input) => recordFailure(deps, input)),
  };
}
