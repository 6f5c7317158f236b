import { createHash } from "node:crypto";
import type { ArtifactRef } from "@voxtrail/core";
import type { LineageGraph } from "./lineage-graph";
import type { StoredActivity } from "./lineage-snapshot";

/** Who produced the events, as OpenLineage's `producer` and every facet's `_producer`. */
export const OPENLINEAGE_PRODUCER = "urn:voxtrail:lineage:0.1.0";

/** OpenLineage's published schemas of the standard facets used here. */
const PARENT_SCHEMA = "https://openlineage.io/spec/facets/1-0-1/ParentRunFacet.json#/$defs/ParentRunFacet";
const ERROR_SCHEMA =
  "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet";
const COLUMN_LINEAGE_SCHEMA =
  "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet";
const TAGS_SCHEMA = "https://openlineage.io/spec/facets/1-0-0/TagsDatasetFacet.json#/$defs/TagsDatasetFacet";

/** A facet: the base fields every OpenLineage facet carries, then its own. */
interface Facet {
  _producer: string;
  _schemaURL: string;
  [field: string]: unknown;
}

/** A dataset as OpenLineage names an S3 object: namespace `s3://bucket`, name = key. */
export interface OpenLineageDataset {
  namespace: string;
  name: string;
  facets: Record<string, Facet>;
}

/** An OpenLineage RunEvent (the subset of the spec that voxtrail writes). */
export interface OpenLineageRunEvent {
  eventType: "START" | "COMPLETE" | "FAIL";
  eventTime: string;
  producer: string;
  schemaURL: string;
  run: { runId: string; facets: Record<string, Facet> };
  job: { namespace: string; name: string; facets: Record<string, Facet> };
  inputs: OpenLineageDataset[];
  outputs: OpenLineageDataset[];
}

/** Options of the export. */
export interface OpenLineageOptions {
  /** The bucket the artifacts live in: datasets are `s3://<bucket>` + key. */
  bucket: string;
  /** Namespace of the jobs (default `voxtrail`). */
  jobNamespace?: string;
}

/**
 * The OpenLineage RunEvents of one activity record: START (with its inputs) and COMPLETE or FAIL
 * (with inputs and outputs). The run id is the activity id; the parent facet groups a job's stage
 * runs under one run per voicemail job. Custom facets follow OpenLineage's naming rule
 * (`<prefix>_<name>`, with `_producer` and `_schemaURL`): `voxtrail_boundary` (compute, processors,
 * policy decision, side channels), `voxtrail_timings`, `voxtrail_attempt` and, per dataset,
 * `voxtrail_hashes` (sha256, bytes, content type, kind, and the real uri, `file://` for a
 * directory store).
 *
 * @example
 * const [start, end] = runEvents(activity, { bucket: "voxtrail-audio" });
 */
export function runEvents(activity: StoredActivity, options: OpenLineageOptions): OpenLineageRunEvent[] {
  const { record } = activity;
  const namespace = options.jobNamespace ?? "voxtrail";
  const facet = (name: string, fields: Record<string, unknown>): Facet => ({
    _producer: OPENLINEAGE_PRODUCER,
    _schemaURL: `${OPENLINEAGE_PRODUCER}:facets:${name}`,
    ...fields,
  });
  const dataset = (ref: ArtifactRef): OpenLineageDataset => ({
    namespace: `s3://${options.bucket}`,
    name: ref.key,
    facets: {
      voxtrail_hashes: facet("HashesDatasetFacet", {
        kind: ref.kind,
        sha256: ref.sha256,
        bytes: ref.bytes,
        contentType: ref.contentType,
        uri: ref.uri,
        ...("etag" in ref && ref.etag ? { etag: ref.etag } : {}),
        ...("versionId" in ref && ref.versionId ? { versionId: ref.versionId } : {}),
      }),
    },
  });
  const runFacets: Record<string, Facet> = {
    parent: {
      _producer: OPENLINEAGE_PRODUCER,
      _schemaURL: PARENT_SCHEMA,
      run: { runId: jobRunId(record.jobId) },
      job: { namespace, name: "voicemail" },
    },
    voxtrail_attempt: facet("AttemptRunFacet", {
      jobId: record.jobId,
      stage: record.stage,
      attempt: record.attempt,
      outcome: record.outcome,
      record: activity.key,
    }),
    voxtrail_boundary: facet("BoundaryRunFacet", {
      compute: record.compute,
      processors: record.processors,
      ...(record.policy ? { policy: record.policy } : {}),
      ...(record.sideChannels ? { sideChannels: record.sideChannels } : {}),
    }),
  };
  const base = {
    producer: OPENLINEAGE_PRODUCER,
    schemaURL: "https://openlineage.io/spec/1-0-0/OpenLineage.json#/definitions/RunEvent",
    job: { namespace, name: `voicemail.${record.stage}`, facets: {} },
    inputs: record.inputs.map(dataset),
  };
  const start: OpenLineageRunEvent = {
    ...base,
    eventType: "START",
    eventTime: record.startedAt,
    run: { runId: record.activityId, facets: runFacets },
    outputs: [],
  };
  const end: OpenLineageRunEvent = {
    ...base,
    eventType: record.outcome === "succeeded" ? "COMPLETE" : "FAIL",
    eventTime: record.endedAt,
    run: {
      runId: record.activityId,
      facets: {
        ...runFacets,
        voxtrail_timings: facet("TimingsRunFacet", { timings: record.timings }),
        ...(record.error
          ? {
              errorMessage: {
                _producer: OPENLINEAGE_PRODUCER,
                _schemaURL: ERROR_SCHEMA,
                message: `${record.error.name}: ${record.error.message}`,
                programmingLanguage: "TypeScript",
              },
            }
          : {}),
      },
    },
    outputs: record.outputs.map((ref) => withRedaction(dataset(ref), record, options)),
  };
  return [start, end];
}

/**
 * An output's redaction as OpenLineage says it (docs/redaction.md). OpenLineage has no masking
 * transformation type: the column lineage facet's transformation is `DIRECT` with `masking: true`,
 * from the input it was redacted from (its whole content as one field, `content`); the tags facet
 * tags the dataset `pii: redacted` (with the kinds removed) by who redacted it. An output written
 * into a job's unredacted location is tagged `pii: unredacted`.
 */
function withRedaction(
  dataset: OpenLineageDataset,
  record: StoredActivity["record"],
  options: OpenLineageOptions,
): OpenLineageDataset {
  const redaction = record.redactions?.find((candidate) => candidate.output === dataset.name);
  if (redaction) {
    const kinds = redaction.kinds.map((count) => `${count.count} ${count.kind}`).join(", ") || "none found";
    dataset.facets.columnLineage = {
      _producer: OPENLINEAGE_PRODUCER,
      _schemaURL: COLUMN_LINEAGE_SCHEMA,
      fields: {
        content: {
          inputFields: [
            {
              namespace: `s3://${options.bucket}`,
              name: redaction.from,
              field: "content",
              transformations: [
                {
                  type: "DIRECT",
                  subtype: "TRANSFORMATION",
                  description: `redacted (${kinds})`,
                  masking: true,
                },
              ],
            },
          ],
        },
      },
    };
    dataset.facets.tags = {
      _producer: OPENLINEAGE_PRODUCER,
      _schemaURL: TAGS_SCHEMA,
      tags: [
        { key: "pii", value: "redacted", source: redaction.by.join("+") },
        ...redaction.kinds.map((count) => ({
          key: "pii.removed",
          value: count.kind,
          source: redaction.by.join("+"),
        })),
      ],
    };
  } else if (dataset.name.split("/")[2] === "unredacted") {
    dataset.facets.tags = {
      _producer: OPENLINEAGE_PRODUCER,
      _schemaURL: TAGS_SCHEMA,
      tags: [{ key: "pii", value: "unredacted", source: "voxtrail" }],
    };
  }
  return dataset;
}

/** Every run event of the graph, in the order the attempts ran. */
export function* openLineageEvents(
  graph: LineageGraph,
  options: OpenLineageOptions,
): Generator<OpenLineageRunEvent> {
  for (const activities of graph.jobs.values()) {
    for (const activity of activities) yield* runEvents(activity, options);
  }
}

/** A stable UUID for a voicemail job's parent run: name-based (SHA-1, version 5 layout) on the job id. */
export function jobRunId(jobId: string): string {
  const bytes = createHash("sha1").update(`voxtrail:job:${jobId}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
