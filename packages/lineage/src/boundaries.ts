import { type ActivityRecord, type ArtifactKind, type Boundary, describeBoundary } from "@voxtrail/core";
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
  /**
   * Whether the data entered redacted (true) or, where the policy required it redacted, did not
   * (false); absent where no redaction was asked or done (docs/redaction.md). Redacted and
   * unredacted flows of one kind into one boundary are counted apart.
   */
  redacted?: boolean;
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
    for (const flow of attemptFlows(record)) {
      const id = `${flow.kind}\u0000${describeBoundary(flow.boundary)}\u0000${flow.provider}\u0000${flow.source}\u0000${flow.redacted}`;
      let count = counts.get(id);
      if (!count) {
        const { kind, boundary, provider, source, redacted } = flow;
        count = {
          kind,
          boundary,
          provider,
          entered: 0,
          refused: 0,
          source,
          ...(redacted === undefined ? {} : { redacted }),
        };
        counts.set(id, count);
      }
      count.entered += flow.entered;
      count.refused += flow.refused;
    }
  }
  return [...counts.values()].sort(byBoundaryOrder);
}

/** One data flow of one stage attempt, counted: `entered` and `refused` are 0 or 1. */
export type AttemptFlow = BoundaryCount;

/**
 * The data flows of one attempt as {@link boundaries} counts them: from its policy decision, or
 * inferred from its processors and the kinds it read and wrote (version 1 records). In a refused
 * attempt nothing was sent, so its allowed flows count as neither entered nor refused.
 */
export function attemptFlows(record: ActivityRecord): AttemptFlow[] {
  const refusedAttempt = record.policy?.outcome === "refused";
  if (record.policy) {
    return record.policy.flows.map(({ kind, boundary, provider, allowed, redacted }) => ({
      kind,
      boundary,
      provider,
      entered: allowed && !refusedAttempt ? 1 : 0,
      refused: allowed ? 0 : 1,
      source: "policy-decision" as const,
      ...(redacted === undefined ? {} : { redacted }),
    }));
  }
  const kinds = [...new Set([...record.inputs, ...record.outputs].map((ref) => ref.kind))];
  return record.processors.flatMap((processor) =>
    kinds.map((kind) => ({
      kind,
      boundary: processor.boundary,
      provider: processor.provider,
      entered: 1,
      refused: 0,
      source: "inferred" as const,
    })),
  );
}

/** The order {@link boundaries} lists its rows in: by kind, boundary, then provider. */
export function byBoundaryOrder(a: BoundaryCount, b: BoundaryCount): number {
  return (
    a.kind.localeCompare(b.kind) ||
    describeBoundary(a.boundary).localeCompare(describeBoundary(b.boundary)) ||
    a.provider.localeCompare(b.provider) ||
    String(a.redacted).localeCompare(String(b.redacted))
  );
}
