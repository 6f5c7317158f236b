import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { S3Client } from "@aws-sdk/client-s3";
import type { IndexRun } from "@voxtrail/functions";
import { type IndexManifest, type IndexTable, latestManifest } from "@voxtrail/lineage/edge-index";
import { S3Store } from "@voxtrail/storage";
import type { Decision, PolicyEvaluator } from "./policy-evaluator";
import type { LineageIndexPlan, RolePlan, StagePlan } from "./stage-plan";

/** Looks at the symlinks this many times at most: another rehearsal's compactor may be mid-write. */
const LOOKS = 10;
const LOOK_INTERVAL_MS = 300;

/** What {@link indexedForAthena} found, and what an auditor's query over the index needs of IAM. */
export interface AthenaIndexCheck {
  /** `SUCCEEDED indexed`, or why not. */
  outcome: string;
  /** The auditor's (`LineageIndexReader`) authorizations a query of the four tables makes. */
  reads: Decision[];
}

/**
 * The lineage index compactor's run, checked as Athena would read the index: the latest manifest
 * exists and holds jobs; for each of its days, each table's folder, as the deployed table's
 * `storage.location.template` names it, holds exactly one file, naming by URI the day's file of
 * that table in the latest manifest, which is there; and no table has a symlink folder for a day
 * the manifest lacks. (Versions are not listed here: moto 5.2 copies every object of the bucket on
 * each ListObjectVersions and keeps the copies, and the rehearsal's bucket holds audio.) Then what a query of the four tables
 * asks of IAM as the auditor (Athena reads the catalog and S3 with the caller's permissions) is
 * authorized against the deployed `LineageIndexReader` policy: the workgroup's query calls, the
 * catalog, database and tables, every symlink and every file it names, their folders' listings,
 * and a result written and read back.
 *
 * @example
 * const { outcome } = await indexedForAthena(run, { plan, motoEndpoint, evaluator }); // "SUCCEEDED indexed"
 */
export async function indexedForAthena(
  run: IndexRun,
  { plan, motoEndpoint, evaluator }: { plan: StagePlan; motoEndpoint: string; evaluator: PolicyEvaluator },
): Promise<AthenaIndexCheck> {
  const index = plan.lineageIndex;
  if (!index) return { outcome: "FAILED NoLineageIndex: the stacks deploy no Glue tables", reads: [] };
  if (run.generation === null)
    return { outcome: "FAILED IndexMissing: the compactor found no job", reads: [] };
  const store = new S3Store({
    client: new S3Client({
      endpoint: motoEndpoint,
      region: plan.region,
      credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
      forcePathStyle: true,
    }),
    bucket: plan.bucket,
  });
  let problems: string[] = [];
  let manifest: IndexManifest | undefined;
  for (let look = 1; look <= LOOKS; look++) {
    manifest = (await latestManifest(store))?.manifest;
    problems = manifest ? await symlinkProblems(store, index, manifest) : ["no manifest"];
    if (problems.length === 0) break;
    await sleep(LOOK_INTERVAL_MS);
  }
  if (!manifest) return { outcome: "FAILED IndexMissing: no manifest after the compactor ran", reads: [] };
  if (problems.length > 0)
    return {
      outcome: `FAILED SymlinksWrong: ${problems.length} problem(s), first ${problems[0]}`,
      reads: [],
    };
  if (manifest.jobs === 0 || manifest.generation < run.generation)
    return {
      outcome: `FAILED IndexStale: generation ${manifest.generation}, ${manifest.jobs} job(s)`,
      reads: [],
    };
  const reads = await auditorReads(store, index, manifest, { plan, evaluator });
  const refused = reads.find((decision) => !decision.allowed);
  return {
    outcome: refused ? `FAILED ReaderDenied: ${refused.action} ${refused.resource}` : "SUCCEEDED indexed",
    reads,
  };
}

/** The key prefix (in the stage's bucket) of a table's folder for `day`, from its location template. */
function folderOf(template: string, bucket: string, day: string): string {
  const url = template.replaceAll(`\${day}`, day);
  const root = `s3://${bucket}/`;
  if (!url.startsWith(root)) throw new Error(`${url} is not in the stage's bucket`);
  return url.slice(root.length);
}

/** Whatever keeps Athena from reading exactly the manifest's files, one line each. */
async function symlinkProblems(
  store: S3Store,
  index: LineageIndexPlan,
  manifest: IndexManifest,
): Promise<string[]> {
  const problems: string[] = [];
  for (const [table, template] of Object.entries(index.tables)) {
    for (const [day, { files }] of Object.entries(manifest.days)) {
      const folder = folderOf(template, store.bucket, day);
      const inFolder = await store.list(folder);
      if (inFolder.length !== 1) {
        problems.push(`${folder} holds ${inFolder.length} file(s)`);
        continue;
      }
      const [symlink] = inFolder as [string];
      const file = files[table as IndexTable];
      const named = (await store.getBytes(symlink)).toString("utf8");
      if (named !== store.uri(file)) problems.push(`${symlink} names ${named}, not the live ${file}`);
      else if (!(await store.head(file))) problems.push(`${symlink} names ${file}, which is gone`);
    }
    // No folder of a day the manifest does not have (Athena would read it as that day's rows).
    const root = folderOf(
      template.slice(0, template.lastIndexOf("/", template.indexOf(`\${day}`)) + 1),
      store.bucket,
      "",
    );
    for (const key of await store.list(root)) {
      const day = /day=([^/]+)\//.exec(key.slice(root.length))?.[1];
      if (!day || !manifest.days[day]) problems.push(`${key} is not a symlink of a day the index has`);
    }
  }
  return problems;
}

/**
 * What a query of every table asks of IAM as an auditor holding `LineageIndexReader` (Athena calls
 * Glue and S3 with the caller's permissions): the workgroup's query calls, `GetDatabase` and
 * `GetTable` on the catalog, the database and each table, the bucket's location, each symlink
 * folder's listing and each symlink, each named file's folder listing and the file, and a result
 * file written and read back under the workgroup's output location.
 */
async function auditorReads(
  store: S3Store,
  index: LineageIndexPlan,
  manifest: IndexManifest,
  { plan, evaluator }: { plan: StagePlan; evaluator: PolicyEvaluator },
): Promise<Decision[]> {
  // An auditor's role, assumed by the account's own people: its trust is the account's to set.
  const auditor: RolePlan = {
    logicalName: "Auditor",
    arn: `arn:aws:iam::${plan.account}:role/voxtrail-rehearsal-auditor`,
    trustPolicy: {
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Allow",
          Principal: { AWS: `arn:aws:iam::${plan.account}:root` },
          Action: "sts:AssumeRole",
        },
      ],
    },
    policies: [index.readerPolicy],
    managedPolicies: [],
  };
  const bucket = `arn:aws:s3:::${plan.bucket}`;
  const glue = (rest: string) => `arn:aws:glue:${plan.region}:${plan.account}:${rest}`;
  const workgroup = `arn:aws:athena:${plan.region}:${plan.account}:workgroup/${index.workgroup}`;
  const requests: Array<{ action: string; resource: string; context?: Record<string, string> }> = [
    ...["StartQueryExecution", "GetQueryExecution", "GetQueryResults"].map((call) => ({
      action: `athena:${call}`,
      resource: workgroup,
    })),
    ...[glue("catalog"), glue(`database/${index.database}`)].map((resource) => ({
      action: "glue:GetDatabase",
      resource,
    })),
    { action: "s3:GetBucketLocation", resource: bucket },
  ];
  const folderOfKey = (key: string) => key.slice(0, key.lastIndexOf("/") + 1);
  for (const [table, template] of Object.entries(index.tables)) {
    for (const resource of [
      glue("catalog"),
      glue(`database/${index.database}`),
      glue(`table/${index.database}/${table}`),
    ])
      requests.push({ action: "glue:GetTable", resource });
    for (const [day, { files }] of Object.entries(manifest.days)) {
      const folder = folderOf(template, store.bucket, day);
      const file = files[table as IndexTable];
      requests.push(
        { action: "s3:ListBucket", resource: bucket, context: { "s3:prefix": folder } },
        ...(await store.list(folder)).map((symlink) => ({
          action: "s3:GetObject",
          resource: `${bucket}/${symlink}`,
        })),
        { action: "s3:ListBucket", resource: bucket, context: { "s3:prefix": folderOfKey(file) } },
        { action: "s3:GetObject", resource: `${bucket}/${file}` },
      );
    }
  }
  const result = `${index.resultsPrefix}${randomUUID()}.csv`;
  requests.push(
    { action: "s3:PutObject", resource: `${bucket}/${result}` },
    { action: "s3:GetObject", resource: `${bucket}/${result}` },
  );
  return Promise.all(requests.map((request) => evaluator.authorize({ role: auditor, ...request })));
}
