import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStore } from "@voxtrail/core";
import { LineageGraph, LocalSigner, readLineage, verify, writeDigest } from "@voxtrail/lineage";

/** What `lineage verify` says of a load run's store, once the run's jobs are signed. */
export interface LoadLineageCheck {
  ok: boolean;
  jobs: number;
  artifactsChecked: number;
  linksChecked: number;
  /** Jobs the run's digest signed, and jobs no digest covers. */
  signedJobs: number;
  pendingJobs: number;
  /** Findings by problem (none when `ok`). */
  issues: Record<string, number>;
  /** The first findings as verify words them (keys and hashes, no caller data). */
  firstIssues: Array<{ problem: string; key: string; detail: string }>;
  wallSeconds: number;
}

/**
 * Signs the jobs a load run wrote (one digest, with a P-256 key made for the run in a temp dir
 * outside the store, as `voxtrail run` signs with the user's; the digest ends at `endedAt`, the
 * run's end in simulated time) and verifies the whole store as
 * `voxtrail lineage verify` does with that key trusted: every artifact re-hashed, every link, chain
 * and summary checked, the digest's signature and coverage.
 */
export async function signAndVerifyLineage(store: ObjectStore, endedAt: Date): Promise<LoadLineageCheck> {
  const started = performance.now();
  const keyDir = await mkdtemp(join(tmpdir(), "voxtrail-load-key-"));
  try {
    const signer = await LocalSigner.loadOrCreate(join(keyDir, "lineage-signing-key.pem"));
    await writeDigest(store, signer, { now: () => endedAt });
    const result = await verify(store, readLineage(store).then(LineageGraph.of), {
      trustedKeys: [await signer.publicKey()],
    });
    const issues: Record<string, number> = {};
    for (const { problem } of result.issues) issues[problem] = (issues[problem] ?? 0) + 1;
    return {
      ok: result.ok,
      jobs: result.jobs,
      artifactsChecked: result.artifactsChecked,
      linksChecked: result.linksChecked,
      signedJobs: result.signatures?.signedJobs ?? 0,
      pendingJobs: result.signatures?.pendingJobs.length ?? 0,
      issues,
      firstIssues: result.issues.slice(0, 5).map(({ problem, key, detail }) => ({ problem, key, detail })),
      wallSeconds: Math.round((performance.now() - started) / 10) / 100,
    };
  } finally {
    await rm(keyDir, { recursive: true, force: true });
  }
}
