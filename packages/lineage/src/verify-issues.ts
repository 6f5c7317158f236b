import type { DigestProblem } from "./digests/verify-digests";
import type { RecordProblem } from "./record-integrity";
import type { CoverageProblem } from "./signed-coverage";

/** What is missing that should be signed: a job, every digest, or the chain's head (`signingAbsence`). */
export type AbsenceProblem =
  | "job-not-signed"
  | "digests-missing"
  | "digest-head-missing"
  | "digest-head-replaced";

/** What can be wrong with the lineage of a store. */
export type VerifyProblem =
  | "hash-mismatch"
  | "missing-artifact"
  | "artifact-without-lineage"
  | "broken-chain"
  | "unreadable-record"
  | "erasure-incomplete"
  | "summary-mismatch"
  | "source-replaced"
  | "ownership-shared"
  | RecordProblem
  | DigestProblem
  | CoverageProblem
  | AbsenceProblem;

/** One finding: the problem, the object it concerns, and a sentence saying what was expected. */
export interface VerifyIssue {
  problem: VerifyProblem;
  key: string;
  jobId?: string;
  detail: string;
}

/** A finding about `key`, of job `jobId`. */
export function issue(problem: VerifyProblem, key: string, jobId: string, detail: string): VerifyIssue {
  return { problem, key, jobId, detail };
}

/** Whether a check found something (checks answer `undefined` for nothing). */
export function isIssue(value: VerifyIssue | undefined): value is VerifyIssue {
  return value !== undefined;
}
