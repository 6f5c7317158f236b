import { SOURCE_KINDS } from "@voxtrail/core";
import { ArtifactNotInLineage, ErasureAmbiguous } from "./errors";
import type { LineageGraph } from "./lineage-graph";

/**
 * The jobs whose whole chains an erasure of `name` (a key, uri or sha256) reaches. A job is one
 * upload (one object version), so its chain is its own source version and everything its
 * activities wrote:
 * - a derived artifact's key or uri names the job that wrote it; when more than one job not yet
 *   erased names it as its own output, it throws `ErasureAmbiguous`;
 * - a sha256 names the one job not yet erased whose source had those bytes or that wrote an
 *   artifact with them (with any erased ones, which erase again as "already erased"); when more
 *   than one job not yet erased holds them (two callers' identical uploads, or a reply that
 *   templates and a deterministic synthesizer made byte for byte the same), it throws
 *   `ErasureAmbiguous` naming the jobs, and nothing is erased;
 * - a source's key names the jobs that read it, unless those not yet erased read different bytes
 *   (several callers' uploads under one name): then it throws `ErasureAmbiguous`, listing each
 *   upload's hash and jobs, and nothing is erased.
 * A job that read an artifact another job in the scope wrote joins the scope (what derives from
 * erased data goes with it). Throws `ArtifactNotInLineage` when no record names `name`.
 *
 * @example
 * erasureScope(graph, "artifacts/vm-0123456789abcdef0123/transcript.json"); // ["vm-0123456789abcdef0123"]
 */
export function erasureScope(graph: LineageGraph, name: string): string[] {
  const named = /^[0-9a-f]{64}$/i.test(name)
    ? jobsWithHash(graph, name.toLowerCase())
    : jobsOfKey(graph, name);
  if (named.size === 0) {
    throw new ArtifactNotInLineage(`no lineage record names the artifact ${JSON.stringify(name)}`);
  }
  // What derives from a job's outputs in other jobs goes with it.
  const queue = [...named];
  for (let jobId = queue.shift(); jobId !== undefined; jobId = queue.shift()) {
    for (const { record } of graph.jobs.get(jobId) ?? []) {
      for (const output of record.outputs) {
        for (const reader of graph.readers.get(output.key) ?? []) {
          if (named.has(reader.record.jobId)) continue;
          named.add(reader.record.jobId);
          queue.push(reader.record.jobId);
        }
      }
    }
  }
  return [...named];
}

function jobsWithHash(graph: LineageGraph, sha256: string): Set<string> {
  const jobs = new Set<string>();
  for (const [jobId, activities] of graph.jobs) {
    const holds = activities.some(
      ({ record }) =>
        record.inputs.some((ref) => SOURCE_KINDS.includes(ref.kind) && ref.sha256 === sha256) ||
        record.outputs.some((ref) => ref.sha256 === sha256),
    );
    if (holds) jobs.add(jobId);
  }
  const live = [...jobs].filter((jobId) => !graph.erasures.has(jobId));
  if (live.length > 1) {
    throw new ErasureAmbiguous(
      `${live.length} jobs not yet erased hold bytes with this sha256: name the one to erase by one of its artifacts' keys: job ${live.sort().join(", ")}`,
    );
  }
  for (const [jobId, erasure] of graph.erasures) {
    if (erasure.erased.some((artifact) => artifact.sha256 === sha256)) jobs.add(jobId);
  }
  return jobs;
}

function jobsOfKey(graph: LineageGraph, name: string): Set<string> {
  const key = graph.resolve(name);
  if (key === undefined) return new Set();
  const writers = graph.writers.get(key) ?? [];
  if (writers.length > 0) {
    const jobs = new Set(writers.map((writer) => writer.record.jobId));
    const live = [...jobs].filter((jobId) => !graph.erasures.has(jobId));
    // A key is one job's own: two jobs naming it as theirs is a forgery verify names
    // (`ownership-shared`), and erasing one must not erase the other.
    if (live.length > 1) {
      throw new ErasureAmbiguous(
        `${live.length} jobs not yet erased name this key as their own output, which only one job can write (verify names it ownership-shared): erase by job after checking them: job ${live.sort().join(", ")}`,
      );
    }
    return jobs;
  }
  const readers = graph.readers.get(key) ?? [];
  const uploads = new Map<string, Set<string>>();
  for (const reader of readers) {
    const ref = reader.record.inputs.find((input) => input.key === key);
    if (!ref || graph.erasures.has(reader.record.jobId)) continue;
    const jobs = uploads.get(ref.sha256) ?? new Set<string>();
    jobs.add(reader.record.jobId);
    uploads.set(ref.sha256, jobs);
  }
  if (uploads.size > 1) {
    const listed = [...uploads].map(([sha256, jobs]) => `sha256 ${sha256} (job ${[...jobs].join(", ")})`);
    throw new ErasureAmbiguous(
      `${uploads.size} different uploads were read from this key, by different jobs: name the one to erase by its sha256 or by one of its job's artifacts: ${listed.join("; ")}`,
    );
  }
  return new Set(readers.map((reader) => reader.record.jobId));
}
