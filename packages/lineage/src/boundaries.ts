import { type ArtifactKind, type Boundary, describeBoundary } from "@voxtrail/core";
import type { LineageGraph } from "./lineage-graph";

/** How often one kind of data entered one provider's boundary. */
export interface BoundaryCount {
  kind: ArtifactKind;
  boundary: Boundary;
  provider: string;
  /** Stage attempts in which the data entered (the policy allowed it). */
  entered: number;
  /** Stage attempts in which the policy refused this flow (and nothing was sent). */
  refused: number;
  /** Whether the counts come from recorded policy decisions, or were inferred (version 1 records). */
  source: "policy-decision" | "inferred";
}

/** Options of {@link boundaries}. */
export interface BoundariesOptions {
  /** Only attempts that started at or after this time (ISO 8601). */
  since?: string;
}

/**
 * Which kinds of data entered which boundaries, counted per provider, from the policy decisions
 * in the activity records. A version 1 record has none: its flows are inferred from its
 * processors and the kinds it read and wrote.
 *
 * @example
 * for (const row of boundaries(graph, { since: "2026-01-01T00:00:00Z" })) console.log(row);
 */
export function boundaries(graph: LineageGraph, options: BoundariesOptions = {}): BoundaryCount[] {
  const since = options.since === undefined ? undefined : Date.parse(options.since);
  const counts = new Map<string, BoundaryCount>();
  for (const { record } of graph.activities) {
    if (since !== undefined && Date.parse(record.startedAt) < since) continue;
    const flows = record.policy
      ? record.policy.flows.map((flow) => ({ ...flow, source: "policy-decision" as const }))
      : record.processors.flatMap((processor) =>
          [...new Set([...record.inputs, ...record.outputs].map((ref) => ref.kind))].map((kind) => ({
            kind,
            provider: processor.provider,
            boundary: processor.boundary,
            allowed: true,
            source: "inferred" as const,
          })),
        );
    const refusedAttempt = record.policy?.outcome === "refused";
    for (const flow of flows) {
      const id = `${flow.kind}\u0000${describeBoundary(flow.boundary)}\u0000${flow.provider}\u0000${flow.source}`;
      let count = counts.get(id);
      if (!count) {
        count = {
          kind: flow.kind,
          boundary: flow.boundary,
          provider: flow.provider,
          entered: 0,
          refused: 0,
          source: flow.source,
        };
        counts.set(id, count);
      }
      // In a refused attempt nothing was sent: its allowed flows did not happen either.
      if (!flow.allowed) count.refused++;
      else if (!refusedAttempt) count.entered++;
    }
  }
  return [...counts.values()].sort(
    (a, b) =>
      a.kind.localeCompare(b.kind) ||
      describeBoundary(a.boundary).localeCompare(describeBoundary(b.boundary)) ||
      a.provider.localeCompare(b.provider),
  );
}
