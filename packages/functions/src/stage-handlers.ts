import type { StageFunction } from "@voxtrail/workflow";
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
  const { logger, metrics } = deps;
  return {
    ingest: stageHandler(logger, "Ingest", IngestInput, (input) => ingest(deps, input), metrics),
    transcribe: stageHandler(
      logger,
      "Transcribe",
      TranscribeInput,
      (input) => transcribe(deps, input),
      metrics,
    ),
    reason: stageHandler(logger, "Reason", ReasonInput, (input) => reason(deps, input), metrics),
    synthesize: stageHandler(
      logger,
      "Synthesize",
      SynthesizeInput,
      (input) => synthesize(deps, input),
      metrics,
    ),
    finalize: stageHandler(logger, "Finalize", FinalizeInput, (input) => finalize(deps, input), metrics),
    recordFailure: stageHandler(
      logger,
      "RecordFailure",
      RecordFailureInput,
      (input) => recordFailure(deps, input),
      metrics,
    ),
  };
}
