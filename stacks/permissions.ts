import {
  ARTIFACT_FILES,
  type ArtifactFile,
  BATCH_FUNCTIONS,
  BATCH_INCOMING_PREFIX,
  BATCH_RESULTS_PREFIX,
  BATCH_WORKFLOW,
  type BatchFunction,
  KEY_FOLDERS,
  keys,
  PROMPT_FUNCTIONS,
  PROMPTS_INCOMING_PREFIX,
  PROMPTS_WORKFLOW,
  type PromptFunction,
  promptKeys,
  RETAINED_PREFIXES,
  STAGE_FUNCTIONS,
  type StageFunction,
  transcribeRedactedOutputKey,
  unredactedKey,
  VOICEMAIL_INCOMING_PREFIX,
  VOICEMAIL_WORKFLOW,
  WORKFLOW_FUNCTIONS,
  type WorkflowFunction,
} from "@voxtrail/workflow";

/** Every workflow function the stage deploys: each workflow descriptor's (`WORKFLOWS`). */
export type DeployedFunction = WorkflowFunction;
/** {@link DeployedFunction}, as a list. */
export const DEPLOYED_FUNCTIONS: readonly DeployedFunction[] = WORKFLOW_FUNCTIONS;

/** One IAM statement, in the shape `sst.aws.Function`'s `permissions` takes. */
export interface IamStatement {
  actions: string[];
  resources: string[];
  conditions?: Array<{ test: string; variable: string; values: string[] }>;
}

/**
 * What one function calls: object keys it reads (GetObject, which HeadObject also needs) and
 * writes (PutObject), as IAM patterns inside the stage's bucket; key prefixes it lists
 * (ListBucket); whether it publishes the outcome event; whether it asks Step Functions if a
 * voicemail or prompts execution still runs (DescribeExecution); which configured providers it invokes
 * (`transcription-job`: it starts Amazon Transcribe jobs, see {@link transcriptionJobStatements}).
 *
 * `lists` also covers every key the function probes (a GET or HEAD of a key that may be missing,
 * whose absence is an answer): without `s3:ListBucket`, S3 answers a missing key with 403 Access
 * Denied instead of 404 Not Found (Amazon S3 API Reference, GetObject and HeadObject:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html), and the store reports a
 * 403 as a failure, not as "no object" (packages/storage/src/s3-store.ts).
 */
export interface StageAccess {
  reads: string[];
  writes: string[];
  lists: string[];
  /**
   * Objects it reads by version id (GetObject and HeadObject with `versionId` need
   * `s3:GetObjectVersion`): Ingest and PreparePrompts read exactly the version their event named,
   * and every stage bucket is versioned.
   */
  readsVersions?: string[];
  publishesOutcome: boolean;
  describesVoicemailExecutions: boolean;
  /** Whether it asks Step Functions if a prompts execution still runs (PreparePrompts' claim). */
  describesPromptsExecutions?: boolean;
  invokes: Array<"sonic-endpoint" | "bedrock-model" | "records-object" | "transcription-job">;
}

/** One artifact file of any job. */
const artifact = (file: ArtifactFile) => keys.artifact("*", file);
/**
 * Every attempt counts its earlier activity records, reads the one it follows to name it by hash
 * (its chain link), and writes its own (functions/src/kernel/activity-recorder.ts).
 */
const LINEAGE = `${KEY_FOLDERS.lineage}*`;
/**
 * Ingest and PreparePrompts claim each job before any work, so a duplicate delivery finds the claim.
 */
const CLAIMS = `${KEY_FOLDERS.claims}*`;
/**
 * Job reports: Finalize and the failure recorder write them; Ingest reads one to judge a
 * duplicate, and finds none while the job's first run is still going.
 */
const REPORTS = `${KEY_FOLDERS.reports}*`;

/**
 * A stage that turns one artifact into the next: it reads `from`, writes `to` and its activity
 * record, and calls the providers in `invokes`.
 */
function artifactStage(from: ArtifactFile, to: ArtifactFile[], invokes: StageAccess["invokes"]): StageAccess {
  return {
    reads: [artifact(from), LINEAGE],
    writes: [...to.map(artifact), LINEAGE],
    lists: [LINEAGE],
    publishesOutcome: false,
    describesVoicemailExecutions: false,
    invokes,
  };
}

/**
 * How a job ends, whether Finalize or the failure recorder ends it: read the job's activity
 * records, write their summary, the job's note for the lineage index and the report, and publish
 * the outcome.
 */
const JOB_END: StageAccess = {
  reads: [LINEAGE],
  writes: [LINEAGE, `${keys.lineageSummaries}*`, `${keys.lineageIndexPending}*`, REPORTS],
  lists: [LINEAGE],
  publishesOutcome: true,
  describesVoicemailExecutions: false,
  invokes: [],
};

/**
 * The table every stage function's permissions come from (the key layout is
 * packages/workflow/src/key-layout.ts). Jobs are named at run time, so a job id is the only
 * wildcard inside a key; nothing reaches outside these prefixes and files.
 */
export const STAGE_ACCESS: Record<StageFunction, StageAccess> = {
  ingest: {
    // A job's claim (functions/src/claims/job-claim.ts): listed, read, created only if absent; a
    // duplicate delivery reads the latest claim's report (probed: missing while that run goes on),
    // and asks whether its execution still runs.
    reads: [`${VOICEMAIL_INCOMING_PREFIX}*`, CLAIMS, REPORTS, LINEAGE],
    readsVersions: [`${VOICEMAIL_INCOMING_PREFIX}*`],
    writes: [artifact(ARTIFACT_FILES.normalizedAudio), LINEAGE, CLAIMS],
    lists: [LINEAGE, CLAIMS, REPORTS],
    publishesOutcome: false,
    describesVoicemailExecutions: true,
    invokes: [],
  },
  transcribe: artifactStage(
    ARTIFACT_FILES.normalizedAudio,
    [ARTIFACT_FILES.transcript],
    ["transcription-job"],
  ),
  reason: artifactStage(
    ARTIFACT_FILES.transcript,
    [ARTIFACT_FILES.record, ARTIFACT_FILES.replyText],
    ["bedrock-model", "records-object"],
  ),
  synthesize: artifactStage(ARTIFACT_FILES.replyText, [ARTIFACT_FILES.replyAudio], ["sonic-endpoint"]),
  finalize: JOB_END,
  recordFailure: JOB_END,
};

/** A prompt job's objects (packages/workflow/src/prompts-layout.ts), any job. */
const PROMPT_ROWS = promptKeys.rows("*");
const PROMPT_BAD_ROWS = promptKeys.badRows("*");
const PROMPT_RESULTS = `${promptKeys.resultsPrefix("*")}*`;
const PROMPT_AUDIO = promptKeys.audio("*", "*");
const PROMPT_REPORT = promptKeys.report("*");

/**
 * The prompts functions' part of the table (handlers in packages/functions/src/handlers/): a rerun
 * reads what an earlier run wrote (rows, results, audio, report) to leave unchanged objects alone.
 * Those reads are probes (the first run finds nothing), so the same keys are in `lists`:
 * PreparePrompts claims the job as Ingest does (a later delivery reads the latest claim and probes
 * the job's report) and heads rows.jsonl and bad-rows.json (functions/src/prompts/unchanged-object.ts);
 * SynthesizePrompt reads its prompt's result and heads its audio; WritePromptsReport reads every
 * row's result (a row never run has none) and heads the report, and ends the job as Finalize does
 * (its lineage summary and index note).
 */
export const PROMPT_ACCESS: Record<PromptFunction, StageAccess> = {
  preparePrompts: {
    // The claim, as Ingest's: listed, read, created only if absent; a later delivery reads the job's
    // report (probed: missing until a run ends) and asks whether the claim's execution still runs.
    // The manifest is read by the version its event named.
    reads: [`${PROMPTS_INCOMING_PREFIX}*`, PROMPT_ROWS, PROMPT_BAD_ROWS, CLAIMS, PROMPT_REPORT, LINEAGE],
    readsVersions: [`${PROMPTS_INCOMING_PREFIX}*`],
    writes: [PROMPT_ROWS, PROMPT_BAD_ROWS, LINEAGE, CLAIMS],
    lists: [LINEAGE, PROMPT_ROWS, PROMPT_BAD_ROWS, CLAIMS, PROMPT_REPORT],
    publishesOutcome: false,
    describesVoicemailExecutions: false,
    describesPromptsExecutions: true,
    invokes: [],
  },
  synthesizePrompt: {
    reads: [PROMPT_RESULTS, PROMPT_AUDIO, LINEAGE],
    writes: [PROMPT_AUDIO, PROMPT_RESULTS, LINEAGE],
    lists: [LINEAGE, PROMPT_RESULTS, PROMPT_AUDIO],
    publishesOutcome: false,
    describesVoicemailExecutions: false,
    invokes: ["sonic-endpoint"],
  },
  recordPromptFailure: {
    reads: [],
    writes: [PROMPT_RESULTS],
    lists: [],
    publishesOutcome: false,
    describesVoicemailExecutions: false,
    invokes: [],
  },
  writePromptsReport: {
    reads: [PROMPT_BAD_ROWS, PROMPT_ROWS, PROMPT_RESULTS, PROMPT_REPORT, LINEAGE],
    // It ends the job: the summary of its records, for the signer, and its note for the index.
    writes: [PROMPT_REPORT, LINEAGE, `${keys.lineageSummaries}*`, `${keys.lineageIndexPending}*`],
    lists: [LINEAGE, PROMPT_RESULTS, PROMPT_REPORT],
    publishesOutcome: false,
    describesVoicemailExecutions: false,
    invokes: [],
  },
};

/**
 * The voicemail batch functions' part of the table: OpenBatch reads its event and nothing else
 * (the state machine's ItemReader reads the manifest), so its role is granted nothing.
 */
export const BATCH_ACCESS: Record<BatchFunction, StageAccess> = {
  openBatch: {
    reads: [],
    writes: [],
    lists: [],
    publishesOutcome: false,
    describesVoicemailExecutions: false,
    invokes: [],
  },
};

/** The whole table: every deployed function's access. */
export const FUNCTION_ACCESS: Record<DeployedFunction, StageAccess> = {
  ...STAGE_ACCESS,
  ...PROMPT_ACCESS,
  ...BATCH_ACCESS,
};

/** What streaming from the Sonic endpoint takes (see {@link stagePermissions}). */
const SONIC_ACTIONS = ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"];

/** Where a stage's permissions point: its bucket and bus, and the providers the stage configured. */
export interface PermissionTargets {
  partition: string;
  region: string;
  account: string;
  bucket: string;
  outcomeBusArn: string;
  /** The voicemail state machine's fixed name ({@link stateMachineNames}): Ingest describes its executions. */
  voicemailStateMachineName: string;
  /** The prompts state machine's fixed name: PreparePrompts describes its executions. */
  promptsStateMachineName: string;
  /** VOXTRAIL_SONIC_ENDPOINT, when Sonic on SageMaker is configured. */
  sonicEndpoint?: string | undefined;
  /** VOXTRAIL_BEDROCK_MODEL_ID, when Bedrock is configured (a foundation model id). */
  bedrockModelId?: string | undefined;
  /** VOXTRAIL_RECORDS_URI (`s3://bucket/key`), when S3 records are configured. */
  recordsUri?: string | undefined;
  /** VOXTRAIL_TRANSCRIBE_JOB_PREFIX, when Amazon Transcribe is configured (stage-config.ts). */
  transcribeJobPrefix?: string | undefined;
  /** VOXTRAIL_TRANSCRIBE_DATA_ACCESS_ROLE_ARN, when Amazon Transcribe is configured. */
  transcribeDataAccessRoleArn?: string | undefined;
  /**
   * The bucket has Object Lock: what a function writes under `RETAINED_PREFIXES` carries its
   * retention (`ObjectLockMode`, `ObjectLockRetainUntilDate`), which S3 authorizes as
   * `s3:PutObjectRetention` besides `s3:PutObject`.
   */
  retainsLineage?: boolean | undefined;
  /**
   * The stage redacts callers' data (docs/redaction.md): Reason also writes the redacted
   * `transcript.json` (reading the transcript Transcribe kept in the job's unredacted location), and
   * Transcribe's job writes, and its read step reads, the redacted output document beside the
   * unredacted one. No other function may read the unredacted location: none is granted it.
   */
  redacts?: boolean | undefined;
}

/**
 * The IAM statements of one function, from {@link FUNCTION_ACCESS}: exactly the calls it makes, on
 * exactly the resources it makes them on. Providers the stage does not configure get nothing.
 *
 * @example
 * stagePermissions("transcribe", { partition: "aws", region: "eu-west-1", account: "123456789012", bucket: "b", ... });
 * // [{ actions: ["s3:GetObject"], resources: ["arn:aws:s3:::b/artifacts/*\/normalized.wav"] }, ...]
 */
export function stagePermissions(fn: DeployedFunction, target: PermissionTargets): IamStatement[] {
  const jobs = FUNCTION_ACCESS[fn].invokes.includes("transcription-job") && target.transcribeJobPrefix;
  const access = withRedaction(
    fn,
    jobs ? withTranscriptionJobObjects(FUNCTION_ACCESS[fn], target.redacts) : FUNCTION_ACCESS[fn],
    target.redacts,
  );
  const statements = objectStatements(access, target);
  if (access.describesVoicemailExecutions) {
    statements.push({
      actions: ["states:DescribeExecution"],
      resources: [executionsOf(target, target.voicemailStateMachineName)],
    });
  }
  if (access.describesPromptsExecutions) {
    statements.push({
      actions: ["states:DescribeExecution"],
      resources: [executionsOf(target, target.promptsStateMachineName)],
    });
  }
  if (access.publishesOutcome)
    statements.push({ actions: ["events:PutEvents"], resources: [target.outcomeBusArn] });
  if (access.invokes.includes("sonic-endpoint") && target.sonicEndpoint) {
    statements.push({
      // The API reference of InvokeEndpointWithResponseStream: "your IAM permissions must allow
      // the sagemaker:InvokeEndpoint action"
      // (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpointWithResponseStream.html);
      // IAM's action list for SageMaker also names sagemaker:InvokeEndpointWithResponseStream.
      // Which one IAM checks is not stated in one place, so both, on this one endpoint.
      actions: [...SONIC_ACTIONS],
      resources: [
        `arn:${target.partition}:sagemaker:${target.region}:${target.account}:endpoint/${target.sonicEndpoint.toLowerCase()}`,
      ],
    });
  }
  if (access.invokes.includes("bedrock-model") && target.bedrockModelId) {
    statements.push({
      actions: ["bedrock:InvokeModel"],
      resources: [
        `arn:${target.partition}:bedrock:${target.region}::foundation-model/${target.bedrockModelId}`,
      ],
    });
  }
  const records = target.recordsUri && /^s3:\/\/([^/]+)\/(.+)$/.exec(target.recordsUri);
  if (access.invokes.includes("records-object") && records) {
    statements.push({
      actions: ["s3:GetObject"],
      resources: [`arn:${target.partition}:s3:::${records[1]}/${records[2]}`],
    });
  }
  if (jobs) {
    statements.push(...transcriptionJobStatements(target));
  }
  return statements.filter((s) => s.resources.length > 0);
}

/** The bucket's part of a function's access, and where its statements point. */
type ObjectAccess = Pick<StageAccess, "reads" | "writes" | "lists" | "readsVersions">;
type ObjectTargets = Pick<PermissionTargets, "partition" | "bucket" | "retainsLineage" | "redacts">;

/**
 * The S3 statements of `access`: GetObject, PutObject, GetObjectVersion, PutObjectRetention on
 * what it writes under `RETAINED_PREFIXES` when the bucket has Object Lock, and ListBucket
 * conditioned on the prefixes it lists. Statements that would name nothing are left out.
 */
function objectStatements(access: ObjectAccess, target: ObjectTargets): IamStatement[] {
  const object = (pattern: string) => `arn:${target.partition}:s3:::${target.bucket}/${pattern}`;
  const statements: IamStatement[] = [
    { actions: ["s3:GetObject"], resources: access.reads.map(object) },
    { actions: ["s3:PutObject"], resources: access.writes.map(object) },
  ];
  if (access.readsVersions && access.readsVersions.length > 0) {
    statements.push({ actions: ["s3:GetObjectVersion"], resources: access.readsVersions.map(object) });
  }
  const retained = access.writes.filter((pattern) =>
    RETAINED_PREFIXES.some((prefix) => pattern.startsWith(prefix)),
  );
  if (target.retainsLineage && retained.length > 0) {
    statements.push({ actions: ["s3:PutObjectRetention"], resources: retained.map(object) });
  }
  if (access.lists.length > 0) {
    statements.push({
      actions: ["s3:ListBucket"],
      resources: [`arn:${target.partition}:s3:::${target.bucket}`],
      conditions: [{ test: "StringLike", variable: "s3:prefix", values: access.lists }],
    });
  }
  return statements.filter((s) => s.resources.length > 0);
}

/**
 * Where the lineage index's manifests live (packages/lineage/src/edge-index/index-manifest.ts,
 * `INDEX_MANIFESTS_PREFIX`): one per generation, each naming its files and their sha256s.
 */
export const LINEAGE_INDEX_MANIFESTS = `${KEY_FOLDERS.lineageIndex}manifests/`;

/**
 * What the lineage signer (packages/functions/src/lambda/sign-lineage.ts, `writeDigest`) does in
 * the bucket: list and read every job summary (a HEAD for its hash; a summary deleted since it was
 * listed is a probe, hence the list grant on the whole prefix), list and read the digests to chain
 * to the latest, list the lineage index's manifests and read the latest (each digest names the
 * index generation current as it signs, by the manifest's sha256; never the index's files, and it
 * writes nothing there), and write the next digest and its `.sig` (retained, as lineage is).
 */
export const LINEAGE_SIGNER_ACCESS: ObjectAccess = {
  reads: [`${keys.lineageSummaries}*`, `${KEY_FOLDERS.lineageDigests}*`, `${LINEAGE_INDEX_MANIFESTS}*`],
  writes: [`${KEY_FOLDERS.lineageDigests}*`],
  lists: [`${keys.lineageSummaries}*`, `${KEY_FOLDERS.lineageDigests}*`, `${LINEAGE_INDEX_MANIFESTS}*`],
};

/** Where the lineage signer's permissions point. */
export interface SignerTargets extends ObjectTargets {
  /** The stage's signing key (`aws.kms.Key`, ECC_NIST_P256 for SIGN_VERIFY), by ARN. */
  signingKeyArn: string;
}

/**
 * The lineage signer's statements: {@link LINEAGE_SIGNER_ACCESS} in the bucket, and on the stage's
 * signing key alone `kms:Sign` (the digest's signature) and `kms:GetPublicKey` (the key's
 * fingerprint, which every digest names), the two KMS calls `KmsSigner` makes. Both take resource
 * type `key` (Service Authorization Reference, "Actions, resources, and condition keys for AWS Key
 * Management Service"). The key's own policy is KMS's default, which lets IAM policies of the
 * account grant its use.
 *
 * @example
 * lineageSignerPermissions({ partition: "aws", bucket: "b", signingKeyArn: "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-…" });
 */
export function lineageSignerPermissions(target: SignerTargets): IamStatement[] {
  return [
    ...objectStatements(LINEAGE_SIGNER_ACCESS, target),
    { actions: ["kms:Sign", "kms:GetPublicKey"], resources: [target.signingKeyArn] },
  ];
}

/**
 * Where the lineage index's Athena symlinks live (packages/lineage/src/edge-index/athena-symlinks.ts,
 * `ATHENA_SYMLINKS_PREFIX`): one folder per table and day, each holding one `manifest` file naming
 * that day's live Parquet file. Outside `lineage-index/`, whose unnamed files `vacuumIndex` deletes.
 */
export const LINEAGE_ATHENA_PREFIX = "lineage-athena/";

/** The tables of the lineage edge index (packages/lineage/src/edge-index/index-rows.ts, `INDEX_TABLES`). */
export const LINEAGE_INDEX_TABLES = ["edges", "flows", "records", "jobs"] as const;

/**
 * What the lineage index compactor (packages/functions/src/lambda/compact-lineage-index.ts) does in
 * the bucket:
 *
 * - `compactLineageIndex`: lists the jobs' notes (`lineage-index/pending/`), deletes them once their
 *   jobs are indexed (a plain DeleteObject), lists the job summaries with their times and reads those written since
 *   the last generation (a summary deleted since it was listed is a probe, hence the list grant on
 *   the whole prefix); lists and reads the manifests, reads the day files a generation rewrites,
 *   writes the new files and the manifest (`putIfAbsent`: a conditional PutObject, authorized as
 *   `s3:PutObject`), and vacuums: lists the index with times, reads the kept manifests, deletes the
 *   rest for good (`deleteForGood`: ListObjectVersions with the key as prefix, a DeleteObject per
 *   version id, then a plain DeleteObject).
 * - `writeAthenaSymlinks`: heads each symlink (missing for a new day: a probe), writes those that
 *   changed and deletes the version each write replaced by its id, deletes a dropped day's
 *   versions by id (never a plain delete, never a listing of versions), and lists the symlinks.
 */
export const LINEAGE_INDEX_COMPACTOR_ACCESS: ObjectAccess & {
  /** Keys whose versions it lists (ListObjectVersions with the key as prefix: `deleteForGood`). */
  listsVersions: string[];
  /** Keys it deletes by version id. */
  removesVersions: string[];
  /** Keys it deletes without a version id (`deleteForGood`'s last call). */
  deletes: string[];
} = {
  reads: [`${keys.lineageSummaries}*`, `${KEY_FOLDERS.lineageIndex}*`, `${LINEAGE_ATHENA_PREFIX}*`],
  writes: [`${KEY_FOLDERS.lineageIndex}*`, `${LINEAGE_ATHENA_PREFIX}*`],
  lists: [`${keys.lineageSummaries}*`, `${KEY_FOLDERS.lineageIndex}*`, `${LINEAGE_ATHENA_PREFIX}*`],
  listsVersions: [`${KEY_FOLDERS.lineageIndex}*`],
  removesVersions: [`${KEY_FOLDERS.lineageIndex}*`, `${LINEAGE_ATHENA_PREFIX}*`],
  deletes: [`${KEY_FOLDERS.lineageIndex}*`],
};

/**
 * The lineage index compactor's statements: {@link LINEAGE_INDEX_COMPACTOR_ACCESS}, nothing outside
 * the index, its symlinks and (read only) the summaries. `s3:ListBucketVersions` takes the
 * `s3:prefix` condition key as `s3:ListBucket` does (Service Authorization Reference for Amazon
 * S3), so it is held to the index's prefix; deleting a version needs `s3:DeleteObjectVersion`, a
 * plain delete `s3:DeleteObject` (Amazon S3 API Reference, DeleteObject), which only the index's
 * files get (a symlink is only ever deleted by version id). Index files are derived
 * (rebuilt from the records at will) and are not under `RETAINED_PREFIXES`: no retention, and the
 * lineage protection of the bucket policy does not cover them.
 *
 * @example
 * lineageIndexCompactorPermissions({ partition: "aws", bucket: "b" });
 */
export function lineageIndexCompactorPermissions(target: ObjectTargets): IamStatement[] {
  const access = LINEAGE_INDEX_COMPACTOR_ACCESS;
  const bucketArn = `arn:${target.partition}:s3:::${target.bucket}`;
  const object = (pattern: string) => `${bucketArn}/${pattern}`;
  return [
    ...objectStatements(access, target),
    {
      actions: ["s3:ListBucketVersions"],
      resources: [bucketArn],
      conditions: [{ test: "StringLike", variable: "s3:prefix", values: [...access.listsVersions] }],
    },
    { actions: ["s3:DeleteObjectVersion"], resources: access.removesVersions.map(object) },
    { actions: ["s3:DeleteObject"], resources: access.deletes.map(object) },
  ];
}

/** Where the auditors' reader policy of the lineage index points. */
export interface IndexReaderTargets extends ArnScope {
  bucket: string;
  /** The stage's Glue database holding the tables `LINEAGE_INDEX_TABLES`. */
  database: string;
  /** The stage's Athena workgroup, whose results go to {@link ATHENA_RESULTS_PREFIX}. */
  workgroup: string;
}

/** Where the lineage index workgroup writes query results (stacks/lineage-index.ts). */
export const ATHENA_RESULTS_PREFIX = "athena-results/";

/** The Athena calls the CLI's Athena engine makes (packages/cli/src/lineage-index/athena-index.ts). */
export const ATHENA_QUERY_ACTIONS = [
  "athena:StartQueryExecution",
  "athena:GetQueryExecution",
  "athena:GetQueryResults",
  "athena:StopQueryExecution",
];

/**
 * What an auditor needs to ask the lineage questions through the stage's workgroup, and nothing
 * more (the `LineageIndexReader` managed policy):
 *
 * - The four Athena calls on the workgroup alone (resource type `workgroup`, Service Authorization
 *   Reference for Amazon Athena): a query in any other workgroup is refused.
 * - Glue, as Athena calls it with the caller's permissions: `GetDatabase`, `GetTable`, `GetTables`
 *   on the catalog, the stage's database and its four tables (each Glue call is authorized on the
 *   resource and its ancestors: "Fine-grained access to databases and tables in the AWS Glue Data
 *   Catalog", Athena User Guide). No `GetPartition(s)`: the tables use partition projection, with
 *   which Athena computes partitions instead of calling GetPartitions ("Partition projection with
 *   Amazon Athena"). `GetDatabase` and `CreateDatabase` on the `default` database, which that
 *   page says must be allowed for Athena and the Data Catalog to work together (creating only a
 *   database named `default`, where the account has none).
 * - S3, which Athena reads as the caller: `GetBucketLocation`; `GetObject` on the symlinks and on
 *   the four tables' Parquet files (not the manifests); `ListBucket` held by `s3:prefix` to those
 *   folders (the engine lists a partition's symlink folder, and the folder of the files a symlink
 *   names); and the query results: `PutObject` (Athena writes them as the caller) and `GetObject`
 *   (GetQueryResults reads them) under `athena-results/` ("Working with query results", Athena
 *   User Guide). No KMS: the bucket and the results are SSE-S3.
 *
 * @example
 * lineageIndexReaderPermissions({ partition: "aws", region, account, bucket, database: "voxtrail_dev_lineage", workgroup: "voxtrail-dev-lineage" });
 */
export function lineageIndexReaderPermissions(target: IndexReaderTargets): IamStatement[] {
  const bucketArn = `arn:${target.partition}:s3:::${target.bucket}`;
  const object = (pattern: string) => `${bucketArn}/${pattern}`;
  const glue = (rest: string) => `arn:${target.partition}:glue:${target.region}:${target.account}:${rest}`;
  const data = [
    `${LINEAGE_ATHENA_PREFIX}*`,
    ...LINEAGE_INDEX_TABLES.map((table) => `${KEY_FOLDERS.lineageIndex}${table}/*`),
  ];
  return [
    {
      actions: [...ATHENA_QUERY_ACTIONS],
      resources: [
        `arn:${target.partition}:athena:${target.region}:${target.account}:workgroup/${target.workgroup}`,
      ],
    },
    {
      actions: ["glue:GetDatabase", "glue:GetTable", "glue:GetTables"],
      resources: [
        glue("catalog"),
        glue(`database/${target.database}`),
        ...LINEAGE_INDEX_TABLES.map((table) => glue(`table/${target.database}/${table}`)),
      ],
    },
    {
      actions: ["glue:GetDatabase", "glue:CreateDatabase"],
      resources: [glue("catalog"), glue("database/default")],
    },
    { actions: ["s3:GetBucketLocation"], resources: [bucketArn] },
    {
      actions: ["s3:ListBucket"],
      resources: [bucketArn],
      conditions: [
        { test: "StringLike", variable: "s3:prefix", values: [...data, `${ATHENA_RESULTS_PREFIX}*`] },
      ],
    },
    { actions: ["s3:GetObject"], resources: data.map(object) },
    { actions: ["s3:PutObject", "s3:GetObject"], resources: [object(`${ATHENA_RESULTS_PREFIX}*`)] },
  ];
}

/**
 * The key policy KMS gives a key created without one ("Default key policy", AWS KMS Developer
 * Guide), written out so it is reviewed with the stacks: it lets the account's IAM policies grant
 * the key's use (KMS honours an IAM policy only where the key policy says so), so the signer's role
 * is the one role of the stage granted `kms:Sign` on it (stacks/permissions.ts).
 */
export function accountKeyPolicy(scope: ArnScope) {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "Enable IAM User Permissions",
        Effect: "Allow",
        Principal: { AWS: `arn:${scope.partition}:iam::${scope.account}:root` },
        Action: "kms:*",
        Resource: "*",
      },
    ],
  };
}

/** Amazon Transcribe's output document of any job: the service writes it, the read step reads it. */
const TRANSCRIBE_OUTPUT = artifact(ARTIFACT_FILES.transcribeOutput);
/** Transcribe's redacted output document, beside the unredacted one in the job's unredacted location. */
const TRANSCRIBE_REDACTED_OUTPUT = transcribeRedactedOutputKey(
  unredactedKey("*", ARTIFACT_FILES.transcribeOutput),
);

/** Where a workflow waiting for a transcription job leaves its task token (the await and resume steps). */
const TRANSCRIPTION_WAITS = keys.transcriptionWait("*");

/**
 * What the Transcribe function needs to run its stage as an Amazon Transcribe job
 * (packages/functions/src/handlers/start-transcription.ts, await-transcription.ts,
 * resume-transcription.ts, read-transcription.ts), beyond reading normalized.wav and writing
 * transcript.json and its lineage, which it already may:
 *
 * - `transcribe:StartTranscriptionJob`. The Service Authorization Reference ("Actions, resources,
 *   and condition keys for Amazon Transcribe",
 *   https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazontranscribe.html)
 *   lists no resource type for this action (only GetTranscriptionJob and DeleteTranscriptionJob
 *   take `transcriptionjob`, `arn:${Partition}:transcribe:${Region}:${Account}:transcription-job/${JobName}`),
 *   so its Resource must be `*`: a statement naming job ARNs would never match it. It is scoped by
 *   the condition keys that page lists for it instead: `transcribe:OutputBucketName` (the stage's
 *   bucket) and `transcribe:OutputKey` (a job's transcribe-output.json). A start without them
 *   (output to a service-managed bucket, or elsewhere) is refused.
 * - `iam:PassRole` on the stage's data-access role, to Transcribe only (`iam:PassedToService`):
 *   the start names it in `JobExecutionSettings.DataAccessRoleArn` to turn job queueing on.
 * - `transcribe:GetTranscriptionJob` on the stage's jobs ({@link transcriptionJobsOf}): the await
 *   step looks at the job once per wait, the read step describes it.
 * - `states:SendTaskSuccess`: the await and resume steps resume the waiting workflow. The
 *   reference lists no resource type for it (a task token names the task), so `*`.
 * - `s3:PutObject`, `s3:GetObject` and a listing on `transcription-waits/`
 *   ({@link withTranscriptionJobObjects}): the await step leaves the task token there, the resume
 *   step reads it, and an event that comes before the token (a job that ended before its wait
 *   began: the await step then resumes the workflow itself) is a probe of a missing key, 403
 *   without the listing.
 * - `s3:GetObject` on transcribe-output.json ({@link withTranscriptionJobObjects}): the read step
 *   reads the document back. Transcribe
 *   writes it, and reads the media, with the data-access role the start passes
 *   ({@link transcribeDataAccessPermissions}), not with the caller's permissions. (AWS's
 *   JobExecutionSettings says the role is assumed "to read queued media files"; the rehearsal
 *   takes it as used for every job that names it. Only a deploy shows whether an unqueued job
 *   falls back to the caller's.)
 *
 * No KMS permission: the bucket encrypts with SSE-S3 (stacks/storage.ts).
 */
function transcriptionJobStatements(target: PermissionTargets): IamStatement[] {
  return [
    {
      actions: ["transcribe:StartTranscriptionJob"],
      resources: ["*"],
      conditions: [
        { test: "StringEquals", variable: "transcribe:OutputBucketName", values: [target.bucket] },
        { test: "StringLike", variable: "transcribe:OutputKey", values: [TRANSCRIBE_OUTPUT] },
      ],
    },
    {
      actions: ["iam:PassRole"],
      resources: target.transcribeDataAccessRoleArn ? [target.transcribeDataAccessRoleArn] : [],
      conditions: [{ test: "StringEquals", variable: "iam:PassedToService", values: [TRANSCRIBE_SERVICE] }],
    },
    {
      actions: ["transcribe:GetTranscriptionJob"],
      resources: target.transcribeJobPrefix ? [transcriptionJobsOf(target, target.transcribeJobPrefix)] : [],
    },
    { actions: ["states:SendTaskSuccess"], resources: ["*"] },
  ];
}

/**
 * `access` with what a transcription job's steps do in the bucket ({@link transcriptionJobStatements}):
 * read the output document, leave and read task tokens, probe for one; and not read the audio,
 * which Transcribe reads with the data-access role.
 */
function withTranscriptionJobObjects(access: StageAccess, redacts?: boolean): StageAccess {
  const audio = artifact(ARTIFACT_FILES.normalizedAudio);
  return {
    ...access,
    reads: [
      ...access.reads.filter((pattern) => pattern !== audio),
      TRANSCRIBE_OUTPUT,
      ...(redacts ? [TRANSCRIBE_REDACTED_OUTPUT] : []),
      TRANSCRIPTION_WAITS,
    ],
    writes: [...access.writes, TRANSCRIPTION_WAITS],
    // With redaction, the read step probes for both documents (one is missing with output
    // `redacted`, or for a language Transcribe does not redact): 403 for a missing key without the listing.
    lists: [
      ...access.lists,
      `${KEY_FOLDERS.transcriptionWaits}*`,
      ...(redacts ? [TRANSCRIBE_OUTPUT, TRANSCRIBE_REDACTED_OUTPUT] : []),
    ],
  };
}

/** Amazon Transcribe's service principal: what the data-access role trusts and is passed to. */
export const TRANSCRIBE_SERVICE = "transcribe.amazonaws.com";

/**
 * The statements of the role Amazon Transcribe assumes for the stage's queued jobs
 * (stacks/transcription-events.ts): read the media, `normalized.wav`, and write the output,
 * `transcribe-output.json`, of any job, and nothing else ("Amazon Transcribe assumes this role to
 * read queued media files. If you have specified an output S3 bucket for the transcription
 * results, this role should have access to the output bucket as well": JobExecutionSettings,
 * Amazon Transcribe API reference).
 *
 * @example
 * transcribeDataAccessPermissions({ partition: "aws", bucket: "voxtrail-production-bucket" });
 * // [{ actions: ["s3:GetObject"], resources: ["arn:aws:s3:::voxtrail-production-bucket/artifacts/*\/normalized.wav"] }, ...]
 */
export function transcribeDataAccessPermissions(target: ObjectTargets): IamStatement[] {
  return objectStatements(
    {
      reads: [artifact(ARTIFACT_FILES.normalizedAudio)],
      writes: [TRANSCRIBE_OUTPUT, ...(target.redacts ? [TRANSCRIBE_REDACTED_OUTPUT] : [])],
      lists: [],
    },
    target,
  );
}

/**
 * `access` of function `fn` in a stage that redacts (docs/redaction.md): Reason writes the
 * redacted transcript besides reading the one Transcribe kept in the job's unredacted location
 * (`artifacts/<job>/unredacted/transcript.json`, which its `transcript.json` grant names).
 */
function withRedaction(fn: DeployedFunction, access: StageAccess, redacts?: boolean): StageAccess {
  if (!redacts || fn !== "reason") return access;
  return { ...access, writes: [...access.writes, artifact(ARTIFACT_FILES.transcript)] };
}

/**
 * The ARN pattern of every Amazon Transcribe job of a stage: its jobs' names start with its
 * prefix (`<app>-<stage>-`, stacks/stage-config.ts). Resource type `transcriptionjob` of the
 * Service Authorization Reference: `arn:${Partition}:transcribe:${Region}:${Account}:transcription-job/${JobName}`.
 *
 * @example
 * transcriptionJobsOf({ partition: "aws", region: "eu-west-1", account: "123456789012" }, "voxtrail-production-");
 * // "arn:aws:transcribe:eu-west-1:123456789012:transcription-job/voxtrail-production-*"
 */
export function transcriptionJobsOf(scope: ArnScope, prefix: string): string {
  return `arn:${scope.partition}:transcribe:${scope.region}:${scope.account}:transcription-job/${prefix}*`;
}

/** The account and region ARNs are built in. */
export interface ArnScope {
  partition: string;
  region: string;
  account: string;
}

/**
 * The fixed name of `workflow`'s state machine in a stage: `<app>-<stage>-<workflow name>`. Fixed,
 * so a role can name a state machine (its own, or the voicemail one) without referring to the
 * resource, which would be a cycle.
 *
 * @example
 * stateMachineName("voxtrail", "dev", BATCH_WORKFLOW); // "voxtrail-dev-voicemail-batch"
 */
export function stateMachineName(app: string, stage: string, workflow: { name: string }): string {
  return `${app}-${stage}-${workflow.name}`;
}

/**
 * The fixed names ({@link stateMachineName}) of the stage's state machines.
 *
 * @example
 * stateMachineNames("voxtrail", "dev").voicemail; // "voxtrail-dev-voicemail"
 */
export function stateMachineNames(app: string, stage: string) {
  return {
    voicemail: stateMachineName(app, stage, VOICEMAIL_WORKFLOW),
    batch: stateMachineName(app, stage, BATCH_WORKFLOW),
    prompts: stateMachineName(app, stage, PROMPTS_WORKFLOW),
  };
}

/** The ARN of the state machine named `name`. */
export function stateMachineArn(scope: ArnScope, name: string): string {
  return `arn:${scope.partition}:states:${scope.region}:${scope.account}:stateMachine:${name}`;
}

/** The ARN pattern of every execution of the state machine named `name`. */
export function executionsOf(scope: ArnScope, name: string): string {
  return executionArn(scope, `${name}:*`);
}

/** An execution ARN (or pattern) from what follows `execution:`. */
function executionArn(scope: ArnScope, rest: string): string {
  return `arn:${scope.partition}:states:${scope.region}:${scope.account}:execution:${rest}`;
}

/**
 * What a state machine with a Distributed Map needs to run its child workflows (AWS Step
 * Functions guide, "IAM policies for using Distributed Map states"): start executions of itself,
 * describe and stop its own executions. A Map Run's child executions are named
 * `<name>/<map run label>:<id>`, hence the second pattern.
 */
function distributedMapStatements(scope: ArnScope, name: string): IamStatement[] {
  return [
    { actions: ["states:StartExecution"], resources: [stateMachineArn(scope, name)] },
    {
      actions: ["states:DescribeExecution", "states:StopExecution"],
      resources: [executionsOf(scope, name), executionArn(scope, `${name}/*`)],
    },
  ];
}

/**
 * What a Distributed Map's ResultWriter calls on its prefix: it writes the results (in parts when
 * they are large) and reads them back for the manifest (AWS Step Functions guide, "ResultWriter").
 */
const RESULT_WRITER_ACTIONS = [
  "s3:PutObject",
  "s3:GetObject",
  "s3:ListMultipartUploadParts",
  "s3:AbortMultipartUpload",
];

/** The rule Step Functions manages for `.sync` integrations with Step Functions itself. */
const SYNC_EVENTS_RULE = "StepFunctionsGetEventsForStepFunctionsExecutionRule";

/** Where the voicemail batch workflow's permissions point. */
export interface BatchTargets extends ArnScope {
  bucket: string;
  voicemailStateMachineName: string;
  batchStateMachineName: string;
  functionArns: Record<BatchFunction, string>;
}

/**
 * The keys a voicemail batch may name: exactly the voicemails Ingest may read (its first read
 * pattern, `incoming/voicemail/*`). A batch runs the voicemail workflow again over uploads that
 * are already in the bucket; a key elsewhere would fail in Ingest anyway, so the batch role may
 * not even look at it.
 */
const BATCH_VOICEMAIL_KEYS = STAGE_ACCESS.ingest.reads[0] as string;

/**
 * The voicemail batch state machine's statements (its definition: packages/workflow/src/
 * voicemail-batch-definition.ts): invoke its function (OpenBatch), read manifests under
 * `incoming/batches/` (ItemReader) and the ETag of each voicemail named
 * ({@link BATCH_VOICEMAIL_KEYS}, `aws-sdk:s3:headObject`, which needs `s3:GetObject`), list those keys (`s3:ListBucket` under the same prefix: without it S3 answers
 * HEAD of a missing key with 403, which reaches the state as `S3.S3Exception`, instead of 404,
 * `S3.NoSuchKeyException`; Amazon S3 API Reference, HeadObject,
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html), write results under
 * `batch-results/` (ResultWriter), run the voicemail state machine and wait for it
 * (`startExecution.sync:2`: start, describe and stop its executions, and the managed EventBridge
 * rule that reports their end), and run its own Distributed Map.
 *
 * @example
 * batchStateMachinePermissions({ partition: "aws", region, account, bucket, voicemailStateMachineName, batchStateMachineName, functionArns });
 */
export function batchStateMachinePermissions(target: BatchTargets): IamStatement[] {
  const object = (pattern: string) => `arn:${target.partition}:s3:::${target.bucket}/${pattern}`;
  return [
    invokeStatement(BATCH_FUNCTIONS, target.functionArns),
    {
      actions: ["s3:GetObject"],
      resources: [object(`${BATCH_INCOMING_PREFIX}*`), object(BATCH_VOICEMAIL_KEYS)],
    },
    {
      actions: ["s3:ListBucket"],
      resources: [`arn:${target.partition}:s3:::${target.bucket}`],
      conditions: [{ test: "StringLike", variable: "s3:prefix", values: [BATCH_VOICEMAIL_KEYS] }],
    },
    { actions: RESULT_WRITER_ACTIONS, resources: [object(`${BATCH_RESULTS_PREFIX}*`)] },
    {
      actions: ["states:StartExecution"],
      resources: [stateMachineArn(target, target.voicemailStateMachineName)],
    },
    {
      actions: ["states:DescribeExecution", "states:StopExecution"],
      resources: [executionsOf(target, target.voicemailStateMachineName)],
    },
    {
      actions: ["events:PutTargets", "events:PutRule", "events:DescribeRule"],
      resources: [
        `arn:${target.partition}:events:${target.region}:${target.account}:rule/${SYNC_EVENTS_RULE}`,
      ],
    },
    ...distributedMapStatements(target, target.batchStateMachineName),
  ];
}

/** The statement that lets a state machine invoke exactly `functions`, whose ARNs are `functionArns`. */
function invokeStatement<F extends string>(
  functions: readonly F[],
  functionArns: Record<F, string>,
): IamStatement {
  return { actions: ["lambda:InvokeFunction"], resources: functions.map((fn) => functionArns[fn]) };
}

/** Where the voicemail workflow's permissions point. */
export interface VoicemailTargets extends ArnScope {
  functionArns: Record<StageFunction, string>;
}

/**
 * The voicemail state machine's statements (packages/workflow/src/voicemail-definition.ts): invoke
 * its six functions, the Transcribe function's `.waitForTaskToken` invocations included (the
 * Lambda integration, "Invoke an AWS Lambda function with Step Functions", needs
 * `lambda:InvokeFunction` whatever its pattern). It calls Amazon Transcribe for nothing: the
 * function starts, looks at and reads the job, and the job's event resumes the workflow.
 *
 * @example
 * voicemailStateMachinePermissions({ partition: "aws", region, account, functionArns });
 * // [{ actions: ["lambda:InvokeFunction"], resources: [...] }]
 */
export function voicemailStateMachinePermissions(target: VoicemailTargets): IamStatement[] {
  return [invokeStatement(STAGE_FUNCTIONS, target.functionArns)];
}

/** Where the prompts workflow's permissions point. */
export interface PromptsTargets extends ArnScope {
  bucket: string;
  promptsStateMachineName: string;
  functionArns: Record<PromptFunction, string>;
}

/**
 * The prompts state machine's statements (packages/workflow/src/prompts-definition.ts): invoke
 * its four functions, read a job's `rows.jsonl` (ItemReader), write under the job's map-results
 * prefix (ResultWriter), and run its own Distributed Map.
 *
 * @example
 * promptsStateMachinePermissions({ partition: "aws", region, account, bucket, promptsStateMachineName, functionArns });
 */
export function promptsStateMachinePermissions(target: PromptsTargets): IamStatement[] {
  const object = (pattern: string) => `arn:${target.partition}:s3:::${target.bucket}/${pattern}`;
  return [
    invokeStatement(PROMPT_FUNCTIONS, target.functionArns),
    { actions: ["s3:GetObject"], resources: [object(PROMPT_ROWS)] },
    { actions: RESULT_WRITER_ACTIONS, resources: [object(`${promptKeys.mapResultsPrefix("*")}/*`)] },
    ...distributedMapStatements(target, target.promptsStateMachineName),
  ];
}

/**
 * What a state machine needs to deliver its logs to CloudWatch Logs (AWS Step Functions guide,
 * "Logging using CloudWatch Logs"): log delivery management, which takes no resource but `*`.
 */
export const LOG_DELIVERY_STATEMENT: IamStatement = {
  actions: [
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
  ],
  resources: ["*"],
};

/**
 * An IAM policy document of `statements`, as a role's inline policy holds it.
 *
 * @example
 * policyDocument([{ actions: ["states:StartExecution"], resources: [arn] }]);
 * // { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: [...], Resource: [...] }] }
 */
export function policyDocument(statements: IamStatement[]) {
  return {
    Version: "2012-10-17",
    Statement: statements.map((s) => ({
      Effect: "Allow",
      Action: s.actions,
      Resource: s.resources,
      ...(s.conditions
        ? { Condition: Object.fromEntries(s.conditions.map((c) => [c.test, { [c.variable]: c.values }])) }
        : {}),
    })),
  };
}
