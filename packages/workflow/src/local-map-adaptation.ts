import type { AslDefinition } from "./asl-definition";

/** Where the local runner hands the Map its items (the rows the ItemReader would read), in the Map state's input. */
export const LOCAL_ITEMS_FIELD = "localItems";

/** The cloud definition does not have the shape the local adaptation was written for. */
export class LocalMapAdaptationFailed extends Error {
  override readonly name = "LocalMapAdaptationFailed";
}

/**
 * A definition with a Distributed Map as aws-local-stepfunctions can run it. The engine cannot
 * read items from S3 (ItemReader), write results to S3 (ResultWriter), run child executions (Mode
 * DISTRIBUTED) or tolerate failures (ToleratedFailurePercentage); so the one Distributed Map
 * becomes an inline Map over the items the local runner hands it at `$.localItems` (the manifest's
 * JSON Lines or CSV rows, parsed as the ItemReader would: a CSV row is an object keyed by the
 * header). Everything else (states, ItemSelector, MaxConcurrency, Retry, Catch) is left as it is.
 * The input is not changed. Used for the prompts workflow and the voicemail batch workflow.
 *
 * Throws `LocalMapAdaptationFailed` when the definition is not what this was written for (no
 * Distributed Map, more than one, an ItemReader that is not S3 JSON Lines or CSV with a header
 * row, no ResultWriter, or an ItemsPath already set): a change to a cloud definition must be
 * looked at here too.
 *
 * @example
 * const local = localMapDefinition(buildPromptsDefinition({ functionArns, maxConcurrency: 4 }));
 * new LocalStateMachine("voxtrail-prompts", local, handlersByArn);
 */
export function localMapDefinition(cloud: AslDefinition): AslDefinition {
  const local = structuredClone(cloud);
  const maps = Object.entries(local.States).filter(([, state]) => state.Type === "Map");
  const distributed = maps.filter(([, state]) => processorMode(state) === "DISTRIBUTED");
  if (distributed.length !== 1) {
    throw new LocalMapAdaptationFailed(
      `expected exactly one Distributed Map state, found ${distributed.length}`,
    );
  }
  const [name, map] = distributed[0] as [string, Record<string, unknown>];
  const reader = map.ItemReader as
    | { Resource?: string; ReaderConfig?: { InputType?: string; CSVHeaderLocation?: string } }
    | undefined;
  const config = reader?.ReaderConfig;
  const readable =
    config?.InputType === "JSONL" ||
    (config?.InputType === "CSV" && config.CSVHeaderLocation === "FIRST_ROW");
  if (reader?.Resource !== "arn:aws:states:::s3:getObject" || !readable) {
    throw new LocalMapAdaptationFailed(
      `Map ${name} does not read JSON Lines or CSV with a header row from S3 with its ItemReader`,
    );
  }
  if (map.ResultWriter === undefined) {
    throw new LocalMapAdaptationFailed(`Map ${name} has no ResultWriter`);
  }
  if (map.ItemsPath !== undefined) {
    throw new LocalMapAdaptationFailed(`Map ${name} already has an ItemsPath`);
  }
  delete map.ItemReader;
  delete map.ResultWriter;
  delete map.ToleratedFailurePercentage;
  map.ItemsPath = `$.${LOCAL_ITEMS_FIELD}`;
  (map.ItemProcessor as Record<string, unknown>).ProcessorConfig = { Mode: "INLINE" };
  return local;
}

function processorMode(state: Record<string, unknown>): unknown {
  const processor = state.ItemProcessor as { ProcessorConfig?: { Mode?: unknown } } | undefined;
  return processor?.ProcessorConfig?.Mode;
}
