import type { ActivityRecord, ArtifactRef } from "@voxtrail/core";
import { escapeHtml } from "./html-escape";

/** A node of a job's lineage diagram: an artifact, or an activity (one stage attempt). */
export interface LineageDiagramNode {
  id: string;
  type: "artifact" | "activity";
  label: string;
  detail: string;
  /** Column: how many activity/artifact steps from a source. */
  depth: number;
  failed: boolean;
}

/**
 * One job's lineage laid out for drawing: artifact -> activity (read) and activity -> artifact
 * (wrote), each node in a column by its distance from the source. Not the queryable graph of a
 * whole store (`LineageGraph` in @voxtrail/lineage): this one only feeds {@link lineageSvg}.
 */
export interface JobLineageDiagram {
  nodes: LineageDiagramNode[];
  edges: Array<{ from: string; to: string }>;
}

/**
 * The lineage diagram of one job from its activity records. Artifacts are identified by URI; an
 * artifact read by an activity but written by none (the voicemail) starts the diagram.
 */
export function lineageGraph(records: ActivityRecord[]): JobLineageDiagram {
  const nodes = new Map<string, LineageDiagramNode>();
  const edges: JobLineageDiagram["edges"] = [];
  const artifactId = (ref: ArtifactRef) => `artifact:${ref.uri}`;
  const depthOf = (id: string) => nodes.get(id)?.depth ?? 0;
  const addArtifact = (ref: ArtifactRef, depth: number) => {
    const id = artifactId(ref);
    const seen = nodes.get(id);
    if (seen) {
      seen.depth = Math.max(seen.depth, depth);
      return id;
    }
    nodes.set(id, {
      id,
      type: "artifact",
      label: ref.kind,
      detail: `${ref.key.split("/").pop() ?? ref.key} · ${ref.sha256.slice(0, 12)} · ${ref.bytes} B`,
      depth,
      failed: false,
    });
    return id;
  };
  for (const record of records) {
    const inputs = record.inputs.map((ref) => addArtifact(ref, nodes.get(artifactId(ref))?.depth ?? 0));
    const id = `activity:${record.activityId}`;
    const depth = Math.max(0, ...inputs.map(depthOf)) + 1;
    const processor = record.processors[0];
    nodes.set(id, {
      id,
      type: "activity",
      label: `${record.stage} #${record.attempt}`,
      detail: processor ? `${processor.provider} · ${record.outcome}` : record.outcome,
      depth,
      failed: record.outcome === "failed",
    });
    for (const input of inputs) edges.push({ from: input, to: id });
    for (const output of record.outputs) edges.push({ from: id, to: addArtifact(output, depth + 1) });
  }
  return { nodes: [...nodes.values()], edges };
}

const NODE_W = 168;
const NODE_H = 44;
const COL_GAP = 56;
const ROW_GAP = 14;

/**
 * The diagram as an inline SVG: one column per depth, artifacts as rounded boxes, activities as
 * dark boxes (red when the attempt failed), arrows for reads and writes.
 */
export function lineageSvg(graph: JobLineageDiagram): string {
  const columns = new Map<number, LineageDiagramNode[]>();
  for (const node of graph.nodes) columns.set(node.depth, [...(columns.get(node.depth) ?? []), node]);
  const position = new Map<string, { x: number; y: number }>();
  for (const [depth, column] of columns) {
    column.forEach((node, row) => {
      position.set(node.id, { x: 10 + depth * (NODE_W + COL_GAP), y: 10 + row * (NODE_H + ROW_GAP) });
    });
  }
  const width = 20 + (Math.max(0, ...columns.keys()) + 1) * (NODE_W + COL_GAP) - COL_GAP;
  const height =
    20 + Math.max(1, ...[...columns.values()].map((c) => c.length)) * (NODE_H + ROW_GAP) - ROW_GAP;
  const edges = graph.edges.map(({ from, to }) => {
    const a = position.get(from);
    const b = position.get(to);
    if (!a || !b) return "";
    const x1 = a.x + NODE_W;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x - 3;
    const y2 = b.y + NODE_H / 2;
    const mid = (x1 + x2) / 2;
    return `<path class="edge" data-from="${escapeHtml(from)}" data-to="${escapeHtml(to)}" d="M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}" marker-end="url(#arrow)"/>`;
  });
  const nodes = graph.nodes.map((node) => {
    const { x, y } = position.get(node.id) ?? { x: 0, y: 0 };
    const cls = `node ${node.type}${node.failed ? " failed" : ""}`;
    return `<g class="${cls}" data-kind="${node.type}" data-label="${escapeHtml(node.label)}" transform="translate(${x},${y})"><rect width="${NODE_W}" height="${NODE_H}" rx="${node.type === "artifact" ? 10 : 3}"/><text x="8" y="18" class="label">${escapeHtml(node.label)}</text><text x="8" y="34" class="detail">${escapeHtml(truncate(node.detail, 28))}</text><title>${escapeHtml(`${node.label}: ${node.detail}`)}</title></g>`;
  });
  return `<svg id="lineage" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="lineage graph"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#667"/></marker></defs>${edges.join("")}${nodes.join("")}</svg>`;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
