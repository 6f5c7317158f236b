import { ARTIFACT_FILES, type StageFunction, VOICEMAIL_INCOMING_PREFIX } from "../packages/workflow/src";

/** One IAM statement, in the shape `sst.aws.Function`'s `permissions` takes. */
export interface IamStatement {
  actions: string[];
  resources: string[];
  conditions?: Array<{ test: string; variable: string; values: string[] }>;
}

/**
 * What one stage function calls: object keys it reads (GetObject, which HeadObject also needs)
 * and writes (PutObject), as IAM patterns inside the stage's bucket; key prefixes it lists
 * (ListBucket); whether it publishes the outcome event; which configured providers it invokes.
 */
export interface StageAccess {
  reads: string[];
  writes: string[];
  lists: string[];
  publishesOutcome: boolean;
  invokes: Array<"sonic-endpoint" | "bedrock-model" | "records-object">;
}

const artifact = (file: (typeof ARTIFACT_FILES)[keyof typeof ARTIFACT_FILES]) => `artifacts/*/${file}`;
/** Every attempt counts its earlier activity records and writes its own (functions/src/lineage/activity.ts). */
const LINEAGE = "lineage/*";

/**
 * The table every stage function's permissions come from (the key layout is
 * packages/workflow/src/key-layout.ts). Jobs are named at run time, so a job id is the only
 * wildcard inside a key; nothing reaches outside these prefixes and files.
 */
export const STAGE_ACCESS: Record<StageFunction, StageAccess> = {
  ingest: {
    reads: [`${VOICEMAIL_INCOMING_PREFIX}*`],
    writes: [artifact(ARTIFACT_FILES.normalizedAudio), LINEAGE],
    lists: [LINEAGE],
    publishesOutcome: false,
    invokes: [],
  },
  transcribe: {
    reads: [artifact(ARTIFACT_FILES.normalizedAudio)],
    writes: [artifact(ARTIFACT_FILES.transcript), LINEAGE],
    lists: [LINEAGE],
    publishesOutcome: false,
    invokes: [],
  },
  reason: {
    reads: [artifact(ARTIFACT_FILES.transcript)],
    writes: [artifact(ARTIFACT_FILES.record), artifact(ARTIFACT_FILES.replyText), LINEAGE],
    lists: [LINEAGE],
    publishesOutcome: false,
    invokes: ["bedrock-model", "records-object"],
  },
  synthesize: {
    reads: [artifact(ARTIFACT_FILES.replyText)],
    writes: [artifact(ARTIFACT_FILES.replyAudio), LINEAGE],
    lists: [LINEAGE],
    publishesOutcome: false,
    invokes: ["sonic-endpoint"],
  },
  finalize: {
    reads: [LINEAGE],
    writes: [LINEAGE, "lineage-summaries/*", "reports/*"],
    lists: [LINEAGE],
    publishesOutcome: true,
    invokes: [],
  },
  recordFailure: {
    reads: [LINEAGE],
    writes: [LINEAGE, "lineage-summaries/*", "reports/*"],
    lists: [LINEAGE],
    publishesOutcome: true,
    invokes: [],
  },
};

/** Where a stage's permissions point: its bucket and bus, and the providers the stage configured. */
export interface PermissionTargets {
  partition: string;
  region: string;
  account: string;
  bucket: string;
  outcomeBusArn: string;
  /** VOXTRAIL_SONIC_ENDPOINT, when Sonic on SageMaker is configured. */
  sonicEndpoint?: string | undefined;
  /** VOXTRAIL_BEDROCK_MODEL_ID, when Bedrock is configured (a foundation model id). */
  bedrockModelId?: string | undefined;
  /** VOXTRAIL_RECORDS_URI (`s3://bucket/key`), when S3 records are configured. */
  recordsUri?: string | undefined;
}

/**
 * The IAM statements of one stage function, from {@link STAGE_ACCESS}: exactly the calls it makes,
 * on exactly the resources it makes them on. Providers the stage does not configure get nothing.
 *
 * @example
 * stagePermissions("transcribe", { partition: "aws", region: "eu-west-1", account: "123456789012", bucket: "b", outcomeBusArn: "..." });
 * // [{ actions: ["s3:GetObject"], resources: ["arn:aws:s3:::b/artifacts/*\/normalized.wav"] }, ...]
 */
export function stagePermissions(fn: StageFunction, target: PermissionTargets): IamStatement[] {
  const access = STAGE_ACCESS[fn];
  const object = (pattern: string) => `arn:${target.partition}:s3:::${target.bucket}/${pattern}`;
  const statements: IamStatement[] = [
    { actions: ["s3:GetObject"], resources: access.reads.map(object) },
    { actions: ["s3:PutObject"], resources: access.writes.map(object) },
    {
      actions: ["s3:ListBucket"],
      resources: [`arn:${target.partition}:s3:::${target.bucket}`],
      conditions: [{ test: "StringLike", variable: "s3:prefix", values: access.lists }],
    },
  ];
  if (access.publishesOutcome)
    statements.push({ actions: ["events:PutEvents"], resources: [target.outcomeBusArn] });
  if (access.invokes.includes("sonic-endpoint") && target.sonicEndpoint) {
    statements.push({
      actions: ["sagemaker:InvokeEndpointWithResponseStream"],
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
  return statements.filter((s) => s.resources.length > 0);
}
