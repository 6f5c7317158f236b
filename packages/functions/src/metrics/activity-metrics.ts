import { type Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";
import type { ActivityRecord } from "@voxtrail/core";
import { ATTEMPT_METRICS } from "@voxtrail/workflow";

/**
 * Adds one stage attempt's figures to the invocation's metrics, flushed as CloudWatch EMF by the
 * `logMetrics` middleware: every timing in milliseconds under its own name (`synthesize.ttfb`, ...),
 * and for a synthesis the open streams, the stalls and the real-time factor. Dimensions stay
 * low-cardinality: the stage's name (`SynthesizePrompt`, never a prompt's record name) and provider
 * here, environment as the instance's default dimension; job ids go in metadata, which CloudWatch
 * does not index.
 */
export function addActivityMetrics(metrics: Metrics, stage: string, record: ActivityRecord): void {
  metrics.addDimensions({ stage, provider: record.conditions?.provider ?? "unknown" });
  metrics.addMetadata("jobId", record.jobId);
  for (const timing of record.timings) metrics.addMetric(timing.name, MetricUnit.Milliseconds, timing.ms);
  if (record.outcome === "failed") metrics.addMetric(ATTEMPT_METRICS.failed, MetricUnit.Count, 1);
  const activeStreams = record.conditions?.activeStreams;
  if (activeStreams !== undefined) {
    metrics.addMetric(ATTEMPT_METRICS.activeStreams, MetricUnit.Count, activeStreams);
  }
  if (record.delivery) {
    metrics.addMetric(ATTEMPT_METRICS.stalls, MetricUnit.Count, record.delivery.stalls.length);
    metrics.addMetric(ATTEMPT_METRICS.rtf, MetricUnit.NoUnit, record.delivery.rtf);
  }
}
