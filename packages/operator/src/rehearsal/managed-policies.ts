import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * An AWS managed policy as vendored in `managed-policies/`: one JSON file per policy, copied from
 * its page of the AWS Managed Policy Reference (`source`), with the version that page names as the
 * default one. AWS may publish a new version: the file is updated from the page, never edited.
 */
interface VendoredPolicy {
  /** Its ARN in the `aws` partition (`arn:aws:iam::aws:policy/service-role/...`). */
  arn: string;
  /** The default version the document is (`v1`), and when AWS last edited the policy. */
  versionId: string;
  editedTime: string;
  source: string;
  /** The policy document, as the page shows it (stage-plan.ts's `PolicyDocument`). */
  document: { Version: string; Statement: Array<Record<string, unknown>> };
}

const DIRECTORY = join(import.meta.dirname, "managed-policies");

/** The vendored policies by their path and name (what follows `:policy/` in any partition's ARN). */
const VENDORED = new Map(
  readdirSync(DIRECTORY)
    .filter((file) => file.endsWith(".json"))
    .map((file) => {
      const policy = JSON.parse(readFileSync(join(DIRECTORY, file), "utf8")) as VendoredPolicy;
      return [policy.arn.replace(/^arn:aws:iam::aws:policy\//, ""), policy] as const;
    }),
);

/**
 * The document of the AWS managed policy `arn` attached to the role `role`, the vendored one, for
 * the evaluator to weigh with the role's inline policies. A policy the rehearsal has no document for
 * (another AWS managed policy, or a customer managed one) is an error that names it and the role:
 * an attached policy is never left out of the evaluation.
 *
 * @example
 * managedPolicyDocument("arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole", "StageIngestRole");
 * // { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: ["logs:CreateLogGroup", ...], Resource: "*" }] }
 */
export function managedPolicyDocument(arn: string, role: string): VendoredPolicy["document"] {
  const path = /^arn:[^:]+:iam::aws:policy\/(.+)$/.exec(arn)?.[1];
  const vendored = path === undefined ? undefined : VENDORED.get(path);
  if (!vendored) {
    throw new Error(
      `role ${role} has the managed policy ${arn} attached, and the rehearsal has no document for it: vendor it in packages/operator/src/rehearsal/managed-policies/ from its AWS Managed Policy Reference page`,
    );
  }
  return vendored.document;
}
