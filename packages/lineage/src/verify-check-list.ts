import { chainsAndLinks } from "./verify-checks/chains-and-links";
import { erasureLeftovers } from "./verify-checks/erasure-leftovers";
import { jobReports } from "./verify-checks/job-reports";
import { objectsWithoutLineage } from "./verify-checks/objects-without-lineage";
import { outputHashes } from "./verify-checks/output-hashes";
import { ownership } from "./verify-checks/ownership";
import { signedCoverage } from "./verify-checks/signed-coverage";
import { signedDigests } from "./verify-checks/signed-digests";
import { signingAbsence } from "./verify-checks/signing-absence";
import { sourceHashes } from "./verify-checks/source-hashes";
import { summaries } from "./verify-checks/summaries";
import { unreadableRecords } from "./verify-checks/unreadable-records";
import type { VerifyCheck } from "./verify-checks/verify-check";

/**
 * `verify`'s checks, in the order their findings are reported (of two findings of one problem on
 * one key, the first is kept). A new check is a module in `verify-checks/` and a line here.
 */
export const VERIFY_CHECKS: readonly VerifyCheck[] = [
  unreadableRecords,
  chainsAndLinks,
  ownership,
  objectsWithoutLineage,
  outputHashes,
  sourceHashes,
  erasureLeftovers,
  jobReports,
  summaries,
  signedDigests,
  signedCoverage,
  signingAbsence,
];
