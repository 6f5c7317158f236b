import { type ArtifactRef, describeBoundary } from "@voxtrail/core";
import type { BoundaryCount, ErasureResult, Impact, TraceNode, VerifyResult } from "@voxtrail/lineage";
import type { IndexCheck, IndexUpdate } from "@voxtrail/lineage/edge-index";

/** A trace as a tree: each artifact with its hash, under it the step that made it and that step's inputs. */
export function traceTree(root: TraceNode): string {
  const lines: string[] = [];
  const walk = (node: TraceNode, prefix: string, last: boolean, top: boolean) => {
    const branch = top ? "" : last ? "└─ " : "├─ ";
    lines.push(`${prefix}${branch}${artifactLine(node.artifact)}${node.repeated ? "  (shown above)" : ""}`);
    const inner = top ? "" : `${prefix}${last ? "   " : "│  "}`;
    const step = node.producedBy;
    if (node.repeated) return;
    if (!step) {
      lines.push(
        `${inner}   ${node.origin === "source" ? "source audio: where the chain begins" : "NO LINEAGE: no record wrote this artifact"}`,
      );
      return;
    }
    const processors = step.processors.map(
      (p) =>
        `${p.provider} ${p.model} ${p.version} in ${describeBoundary(p.boundary)}${p.endpoint ? ` via ${p.endpoint}` : ""}`,
    );
    lines.push(
      `${inner}   ← ${step.stage} attempt ${step.attempt} ${step.outcome}, ${step.startedAt} → ${step.endedAt}, compute ${describeBoundary(step.compute)}${step.policy ? `, policy ${step.policy.environment}: ${step.policy.outcome}` : ""}`,
      ...processors.map((p) => `${inner}     processor ${p}`),
      `${inner}     record ${step.record}`,
    );
    for (const [index, input] of node.inputs.entries()) {
      walk(input, `${inner}   `, index === node.inputs.length - 1, false);
    }
  };
  walk(root, "", true, true);
  return `${lines.join("\n")}\n`;
}

/** The artifacts derived from a source, as a table. */
export function impactTable(result: Impact): string {
  return [
    `${artifactLine(result.source)}`,
    `reaches ${result.artifacts.length} derived artifact(s) in ${result.jobs.length} job(s): ${result.jobs.join(", ")}`,
    table(
      ["kind", "key", "sha256", "bytes"],
      result.artifacts.map((ref) => [ref.kind, ref.key, ref.sha256.slice(0, 16), String(ref.bytes)]),
    ),
    `activity records (kept by an erasure): ${result.records.length}`,
  ].join("\n");
}

/** A verification's summary and findings. */
export function verifyReport(result: VerifyResult, trustedKeys: string[] = []): string {
  const head = `${result.ok ? "OK" : "FAILED"}: ${result.jobs} job(s), ${result.artifactsChecked} artifact(s) re-hashed, ${result.linksChecked} link(s) checked, ${result.erased.length} erased chain(s), ${result.issues.length} problem(s)`;
  const signed = result.signatures;
  const signatures = signed
    ? [
        `signatures: ${signed.digests} digest(s) checked with ${trustedKeys.join(", ")}${signed.latestEnd ? `, the latest written ${signed.latestEnd}` : ""}; ${signed.signedJobs} job(s) as signed, ${signed.pendingJobs.length} not signed yet${signed.pendingJobs.length > 0 ? ` (${signed.pendingJobs.slice(0, 3).join(", ")}${signed.pendingJobs.length > 3 ? ", ..." : ""})` : ""}`,
        ...(signed.head?.sequence === undefined
          ? []
          : [
              `head: sequence ${signed.head.sequence}, sha256 ${signed.head.sha256} (keep it: --expect-head ${signed.head.sequence}:${signed.head.sha256} finds the newest digests deleted or replaced)`,
            ]),
        ...(signed.repairs ?? []).map(
          (repair) =>
            `repaired: ${repair.key} replaced ${repair.replaced} forked digest(s), kept under lineage-digest-repairs/${repair.repairId}/`,
        ),
      ].join("\n")
    : "signatures: not checked (no trusted key: --public-key FILE or --kms-key-id ID)";
  const erased = result.erased.map((e) => `erased  ${e.jobId}  by erasure ${e.erasureId} at ${e.erasedAt}`);
  const issues =
    result.issues.length === 0
      ? []
      : [
          table(
            ["problem", "key", "detail"],
            result.issues.map((i) => [i.problem, i.key, i.detail]),
          ),
        ];
  return [head, signatures, ...erased, ...issues].join("\n");
}

/** Boundary counts as a table. */
export function boundariesTable(rows: BoundaryCount[]): string {
  return table(
    ["kind", "boundary", "provider", "redacted", "entered", "refused", "from"],
    rows.map((r) => [
      r.kind,
      describeBoundary(r.boundary),
      r.provider,
      r.redacted === undefined ? "-" : r.redacted ? "yes" : "no",
      String(r.entered),
      String(r.refused),
      r.source,
    ]),
  );
}

/** What an erasure deleted. */
export function erasureReport(result: ErasureResult): string {
  return [
    `erasure ${result.erasureId} of ${result.named}: ${result.jobs.length} job(s), ${result.erased.length} object(s), records ${result.records.join(", ") || "(none new)"}`,
    table(
      ["kind", "key", "sha256", "was there"],
      result.erased.map((a) => [a.kind, a.key, a.sha256.slice(0, 16), a.existed ? "yes" : "no"]),
    ),
    ...(result.alreadyErased.length > 0 ? [`already erased: ${result.alreadyErased.join(", ")}`] : []),
    ...result.serviceJobs.map((job) => `${job.service} job ${job.name}: ${job.deleted}`),
  ].join("\n");
}

function artifactLine(ref: ArtifactRef): string {
  return `${ref.key}  [${ref.kind}]  sha256 ${ref.sha256.slice(0, 16)}…  ${ref.bytes} B`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** What `lineage reindex` did, in a line. */
export function reindexReport(update: IndexUpdate, ms: number): string {
  if (update.generation === undefined)
    return "lineage index: no lineage records in the store, nothing to index";
  return `lineage index rebuilt from the records: ${update.jobs} job(s), generation ${update.generation}, ${update.manifestKey} (${Math.round(ms)} ms)`;
}

/** What `lineage verify` found comparing the edge index with the records, in a line or more. */
export function indexCheckReport(check: IndexCheck): string {
  if (check.manifestKey === undefined) return "lineage index: none in the store";
  if (check.findings.length === 0) {
    return `lineage index: OK, ${check.jobsChecked} job(s) agree with their records (${check.manifestKey})`;
  }
  return [
    `lineage index: ${check.findings.length} problem(s) in ${check.manifestKey} (rebuild it with \`voxtrail lineage reindex\`)`,
    ...check.findings.map((finding) => `  ${finding.problem}: ${finding.detail}`),
  ].join("\n");
}
