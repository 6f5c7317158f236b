import type { ActivityRecord } from "./activity-record";
import type { TimingSample } from "./timing-sample";

/**
 * The raw latency samples of one stage attempt: each timing with the attempt's job, stage, attempt
 * and conditions. Records written before conditions were recorded still yield samples: provider,
 * model and version then come from the first processor (`unknown` without one), payload size from
 * the inputs, and the load figures stay absent.
 *
 * @example
 * const samples = timingSamples(ActivityRecord.parse(JSON.parse(text)));
 */
export function timingSamples(record: ActivityRecord): TimingSample[] {
  const processor = record.processors[0];
  const conditions = record.conditions ?? {
    provider: processor?.provider ?? "unknown",
    model: processor?.model ?? "unknown",
    version: processor?.version ?? "unknown",
    payloadBytes: record.inputs.reduce((sum, input) => sum + input.bytes, 0),
  };
  return record.timings.map((timing) => ({
    ...timing,
    jobId: record.jobId,
    stage: record.stage,
    attempt: record.attempt,
    ...conditions,
  }));
}
