import { type LineageGraph, openLineageEvents, postToDataZone } from "@voxtrail/lineage";
import { UsageError } from "../usage-error";
import type { LineageOptions } from "./lineage-options";

/** `lineage export`: NDJSON OpenLineage RunEvents on stdout, or posted to Amazon DataZone. */
export async function exportEvents(
  graph: LineageGraph,
  bucket: string,
  options: LineageOptions,
): Promise<number> {
  if ((options.format ?? "openlineage") !== "openlineage") {
    throw new UsageError(`--format must be openlineage, got ${JSON.stringify(options.format)}`);
  }
  const events = openLineageEvents(graph, { bucket });
  if (options.to === undefined) {
    for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
    return 0;
  }
  if (options.to !== "datazone")
    throw new UsageError(`--to must be datazone, got ${JSON.stringify(options.to)}`);
  if (!options.domain) throw new UsageError("--to datazone needs --domain ID");
  const result = await postToDataZone(options.domain, events);
  process.stdout.write(
    options.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : `posted ${result.posted.length} event(s) to DataZone domain ${result.domainId}\n`,
  );
  return 0;
}
