/**
 * What IAM authorizes for an AWS API request as it arrives on the wire (the SDK's own request,
 * path-style S3 or a JSON protocol's `X-Amz-Target`): the actions and resource ARNs of AWS's
 * Service Authorization Reference, and the condition keys the service supplies. The rehearsal's
 * proxy asks this of every request a function or state machine sends.
 */

import { TRANSCRIBE_SERVICE } from "../../../../stacks/permissions";
import { s3RequestActions } from "./s3-request-actions";
import {
  type RequestActions,
  type RequiredPermission,
  UnmappedRequest,
  type WireRequest,
} from "./wire-request";

export type { RequestActions, RequiredPermission, WireRequest } from "./wire-request";
export { UnmappedRequest } from "./wire-request";

/** The account and region ARNs are built in. */
export interface ArnScope {
  account: string;
  region: string;
}

/** The signing service of a SigV4 request (`Credential=AKID/date/region/SERVICE/aws4_request`), and its key id. */
export function signingOf(headers: WireRequest["headers"]): { accessKeyId: string; service: string } {
  const authorization = String(headers.authorization ?? "");
  const match = /Credential=([^/]+)\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization);
  if (!match) throw new UnmappedRequest("the request is not signed with SigV4");
  return { accessKeyId: match[1] as string, service: match[2] as string };
}

/**
 * The IAM actions, resources and condition keys of `request` for the signing `service`. A request
 * that needs none is refused as unmapped too: IAM authorizes every call, so a mapping that finds
 * nothing to authorize has not understood it.
 *
 * @example
 * requestActions("s3", { method: "HEAD", url: "/b/claims/j1/run-01.json", headers: {} }, scope);
 * // { service: "s3", operation: "HeadObject", permissions: [{ action: "s3:GetObject", resource: "arn:aws:s3:::b/claims/j1/run-01.json" }], objectRead: {...} }
 */
export function requestActions(service: string, request: WireRequest, scope: ArnScope): RequestActions {
  const actions = serviceActions(service, request, scope);
  if (actions.permissions.length === 0) {
    throw new UnmappedRequest(`no IAM mapping for ${service} ${actions.operation}: it needs no permission`);
  }
  return actions;
}

function serviceActions(service: string, request: WireRequest, scope: ArnScope): RequestActions {
  switch (service) {
    case "s3":
      return s3RequestActions(request);
    case "states":
    case "events":
    case "ssm":
      return jsonProtocolActions(service, request, scope);
    case "sagemaker":
      return sagemakerRuntimeActions(request, scope);
    case "bedrock":
      return bedrockRuntimeActions(request, scope);
    case "transcribe":
      return transcribeActions(request, scope);
    case "kms":
      return kmsActions(request, scope);
    default:
      throw new UnmappedRequest(`no IAM mapping for the ${service} service`);
  }
}

/** JSON-protocol operations the pipeline sends, with where their resource is. */
const JSON_OPERATIONS: Record<
  string,
  (body: Record<string, unknown>, scope: ArnScope) => RequiredPermission[]
> = {
  "AWSStepFunctions.DescribeExecution": (body) => [
    { action: "states:DescribeExecution", resource: String(body.executionArn) },
  ],
  // SendTaskSuccess names no resource: the Service Authorization Reference lists no resource type
  // for it (a task token names the task), so IAM authorizes it on `*`.
  "AWSStepFunctions.SendTaskSuccess": () => [{ action: "states:SendTaskSuccess", resource: "*" }],
  "AWSStepFunctions.StartExecution": (body) => [
    { action: "states:StartExecution", resource: String(body.stateMachineArn) },
  ],
  "AWSStepFunctions.StopExecution": (body) => [
    { action: "states:StopExecution", resource: String(body.executionArn) },
  ],
  "AWSStepFunctions.ListExecutions": (body) => [
    { action: "states:ListExecutions", resource: String(body.stateMachineArn) },
  ],
  "AWSEvents.PutEvents": (body, scope) =>
    ((body.Entries ?? []) as Array<{ EventBusName?: string }>).map((entry) => ({
      action: "events:PutEvents",
      resource: busArn(entry.EventBusName ?? "default", scope),
    })),
  "AmazonSSM.GetParameter": (body, scope) => [
    {
      action: "ssm:GetParameter",
      resource: `arn:aws:ssm:${scope.region}:${scope.account}:parameter/${String(body.Name).replace(/^\//, "")}`,
    },
  ],
};

function jsonProtocolActions(service: string, request: WireRequest, scope: ArnScope): RequestActions {
  const target = String(request.headers["x-amz-target"] ?? "");
  const operation = JSON_OPERATIONS[target];
  if (!operation) throw new UnmappedRequest(`no IAM mapping for ${service} ${target || "(no X-Amz-Target)"}`);
  const body = JSON.parse(request.body?.toString("utf8") || "{}") as Record<string, unknown>;
  return { service, operation: target.split(".").pop() as string, permissions: operation(body, scope) };
}

function busArn(nameOrArn: string, scope: ArnScope): string {
  return nameOrArn.startsWith("arn:")
    ? nameOrArn
    : `arn:aws:events:${scope.region}:${scope.account}:event-bus/${nameOrArn}`;
}

/**
 * SageMaker Runtime. `InvokeEndpointWithResponseStream`'s API reference says the caller needs
 * `sagemaker:InvokeEndpoint`; IAM's action list also names `sagemaker:InvokeEndpointWithResponseStream`,
 * and neither page says which one IAM checks: the rehearsal requires both.
 */
function sagemakerRuntimeActions(request: WireRequest, scope: ArnScope): RequestActions {
  const match = /^\/endpoints\/([^/]+)\/(invocations|invocations-response-stream)$/.exec(
    new URL(request.url, "http://sagemaker.local").pathname,
  );
  if (!match) throw new UnmappedRequest(`no IAM mapping for SageMaker Runtime ${request.url}`);
  const endpoint = `arn:aws:sagemaker:${scope.region}:${scope.account}:endpoint/${decodeURIComponent(match[1] as string).toLowerCase()}`;
  const streaming = match[2] === "invocations-response-stream";
  return {
    service: "sagemaker",
    operation: streaming ? "InvokeEndpointWithResponseStream" : "InvokeEndpoint",
    permissions: [
      { action: "sagemaker:InvokeEndpoint", resource: endpoint },
      ...(streaming ? [{ action: "sagemaker:InvokeEndpointWithResponseStream", resource: endpoint }] : []),
    ],
  };
}

function bedrockRuntimeActions(request: WireRequest, scope: ArnScope): RequestActions {
  const match = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/.exec(
    new URL(request.url, "http://bedrock.local").pathname,
  );
  if (!match) throw new UnmappedRequest(`no IAM mapping for Bedrock Runtime ${request.url}`);
  const model = decodeURIComponent(match[1] as string);
  const resource = model.startsWith("arn:")
    ? model
    : `arn:aws:bedrock:${scope.region}::foundation-model/${model}`;
  const streaming = match[2]?.endsWith("stream");
  return {
    service: "bedrock",
    operation: match[2] as string,
    permissions: [
      { action: streaming ? "bedrock:InvokeModelWithResponseStream" : "bedrock:InvokeModel", resource },
    ],
  };
}

/**
 * Amazon Transcribe's batch API (JSON 1.1, `X-Amz-Target: Transcribe.<Operation>`), as IAM
 * authorizes it (Service Authorization Reference, "Actions, resources, and condition keys for
 * Amazon Transcribe"):
 *
 * - `GetTranscriptionJob`, `DeleteTranscriptionJob`: `transcribe:<Operation>` on the job,
 *   resource type `transcriptionjob`, `arn:${Partition}:transcribe:${Region}:${Account}:transcription-job/${JobName}`.
 * - `StartTranscriptionJob`: `transcribe:StartTranscriptionJob`, an action with no resource type,
 *   so on `*`, with the condition keys the request supplies (`transcribe:OutputBucketName`,
 *   `transcribe:OutputKey`, `transcribe:OutputEncryptionKMSKeyId`). And `s3:GetObject` on the
 *   media object and `s3:PutObject` on the output object (`<OutputBucketName>/<OutputKey>`, or
 *   `<OutputBucketName>/<OutputKey><job>.json` when the key is a folder (ends in `/`), or
 *   `<OutputBucketName>/<job>.json` without a key; none without an output bucket, the service's
 *   own): the caller's, when the request names no `JobExecutionSettings.DataAccessRoleArn`
 *   (Transcribe then reads and writes with the caller's permissions), else the data-access role's
 *   ("Amazon Transcribe assumes this role to read queued media files ... this role should have
 *   access to the output bucket as well": JobExecutionSettings, API reference), and the caller's
 *   `iam:PassRole` on that role, to Transcribe (`iam:PassedToService`). The rehearsal takes the
 *   role as used for every job that names it, queued or not; what Transcribe does for a job that
 *   never waits in its queue is not documented.
 */
function transcribeActions(request: WireRequest, scope: ArnScope): RequestActions {
  const target = String(request.headers["x-amz-target"] ?? "");
  const operation = target.startsWith("Transcribe.") ? target.slice("Transcribe.".length) : "";
  const body = JSON.parse(request.body?.toString("utf8") || "{}") as Record<string, unknown>;
  const jobName = String(body.TranscriptionJobName ?? "");
  const job = `arn:aws:transcribe:${scope.region}:${scope.account}:transcription-job/${jobName}`;
  const actions = (permissions: RequiredPermission[]) => ({ service: "transcribe", operation, permissions });
  switch (operation) {
    case "GetTranscriptionJob":
    case "DeleteTranscriptionJob":
      return actions([{ action: `transcribe:${operation}`, resource: job }]);
    case "StartTranscriptionJob": {
      const settings = body.JobExecutionSettings as { DataAccessRoleArn?: unknown } | undefined;
      const dataAccessRole =
        typeof settings?.DataAccessRoleArn === "string" ? settings.DataAccessRoleArn : undefined;
      const asService = dataAccessRole ? { assumedRole: dataAccessRole } : {};
      const context = Object.fromEntries(
        (
          [
            ["transcribe:OutputBucketName", body.OutputBucketName],
            ["transcribe:OutputKey", body.OutputKey],
            ["transcribe:OutputEncryptionKMSKeyId", body.OutputEncryptionKMSKeyId],
          ] as const
        ).flatMap(([key, value]) => (typeof value === "string" ? [[key, value]] : [])),
      );
      const media = /^s3:\/\/([^/]+)\/(.+)$/.exec(
        String((body.Media as { MediaFileUri?: unknown } | undefined)?.MediaFileUri ?? ""),
      );
      if (!media) throw new UnmappedRequest("StartTranscriptionJob whose media is not an s3:// URI");
      const permissions: RequiredPermission[] = [
        { action: "transcribe:StartTranscriptionJob", resource: "*", context },
        ...(dataAccessRole
          ? [
              {
                action: "iam:PassRole",
                resource: dataAccessRole,
                context: { "iam:PassedToService": TRANSCRIBE_SERVICE },
              },
            ]
          : []),
        { action: "s3:GetObject", resource: `arn:aws:s3:::${media[1]}/${media[2]}`, ...asService },
      ];
      if (typeof body.OutputBucketName === "string") {
        const key = typeof body.OutputKey === "string" ? body.OutputKey : "";
        const output = key === "" || key.endsWith("/") ? `${key}${jobName}.json` : key;
        permissions.push({
          action: "s3:PutObject",
          resource: `arn:aws:s3:::${body.OutputBucketName}/${output}`,
          ...asService,
        });
      }
      return actions(permissions);
    }
    default:
      throw new UnmappedRequest(`no IAM mapping for transcribe ${target || "(no X-Amz-Target)"}`);
  }
}

/**
 * AWS KMS (JSON 1.1, `X-Amz-Target: TrentService.<Operation>`): the lineage signer's `Sign` and
 * `GetPublicKey`, each `kms:<Operation>` on the key (resource type `key`,
 * `arn:${Partition}:kms:${Region}:${Account}:key/${KeyId}`; Service Authorization Reference for
 * AWS KMS). The key is named by ARN or id; an alias is not mapped (the signer is given the ARN).
 */
function kmsActions(request: WireRequest, scope: ArnScope): RequestActions {
  const target = String(request.headers["x-amz-target"] ?? "");
  const operation = target.startsWith("TrentService.") ? target.slice("TrentService.".length) : "";
  if (operation !== "Sign" && operation !== "GetPublicKey") {
    throw new UnmappedRequest(`no IAM mapping for kms ${target || "(no X-Amz-Target)"}`);
  }
  const keyId = String(
    (JSON.parse(request.body?.toString("utf8") || "{}") as { KeyId?: unknown }).KeyId ?? "",
  );
  if (keyId === "" || keyId.startsWith("alias/") || keyId.includes(":alias/")) {
    throw new UnmappedRequest(`kms ${operation} names its key by alias or not at all`);
  }
  const resource = keyId.startsWith("arn:")
    ? keyId
    : `arn:aws:kms:${scope.region}:${scope.account}:key/${keyId}`;
  return { service: "kms", operation, permissions: [{ action: `kms:${operation}`, resource }] };
}
