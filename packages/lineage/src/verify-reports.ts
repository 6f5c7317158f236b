import { isSchemaMismatch, JobReport, type ObjectStore, readJson, SOURCE_KINDS } from "@voxtrail/core";
import { keys } from "@voxtrail/workflow";
import type { LineageGraph } from "./lineage-graph";
import { issue, type VerifyIssue } from "./verify-issues";

/**
 * A job's report, where the lineage says it was written, must list the artifacts the lineage
 * recorded. `from` is the store, or the report's bytes as already read (to hash them).
 */
export async function checkReport(
  from: Pick<ObjectStore, "getBytes">,
  graph: LineageGraph,
  jobId: string,
): Promise<VerifyIssue[]> {
  const key = keys.report(jobId);
  if (!graph.producers.has(key)) return [];
  let report: JobReport;
  try {
    report = await readJson(from, key, JobReport);
  } catch (error) {
    if (isSchemaMismatch(error)) {
      return [issue("broken-chain", key, jobId, "the report does not match its schema")];
    }
    return []; // Missing or altered: the re-hash already names it.
  }
  return report.artifacts.flatMap((ref) => {
    const producer = graph.producers.get(ref.key);
    if (!producer) {
      return SOURCE_KINDS.includes(ref.kind) || graph.readers.has(ref.key)
        ? []
        : [
            issue(
              "artifact-without-lineage",
              ref.key,
              jobId,
              `the report lists this ${ref.kind}, but no activity record wrote it`,
            ),
          ];
    }
    return producer.ref.sha256 === ref.sha256
      ? []
      : [
          issue(
            "broken-chain",
            ref.key,
            jobId,
            `the report says sha256 ${ref.sha256}, the lineage ${producer.ref.sha256}`,
          ),
        ];
  });
}
