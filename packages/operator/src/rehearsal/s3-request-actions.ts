/**
 * Amazon S3 requests (REST, path-style, as the AWS SDK for JavaScript v3 sends them to an IP
 * endpoint) mapped to what IAM authorizes, after the Service Authorization Reference, "Actions,
 * resources, and condition keys for Amazon S3"
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html: its
 * "API operations" table names each operation's actions, its "Actions" table each action's
 * resource type and condition keys), the Amazon S3 User Guide's "Required permissions for Amazon
 * S3 API operations" (https://docs.aws.amazon.com/AmazonS3/latest/userguide/using-with-s3-policy-actions.html)
 * and each operation's "Permissions" in the Amazon S3 API Reference. An operation is told by its
 * method, whether it names a key, its subresource (the query parameter that names it: `?acl`,
 * `?tagging`, ...) and, for a copy, the `x-amz-copy-source` header; a request whose query carries
 * anything its operation does not take is not that operation. What no row below matches is refused
 * as unmapped, naming the method and the query's parameter names (never a value, a key or a body).
 * The mapping as a table: docs/architecture.md, "The rehearsal's S3 requests, as IAM authorizes them".
 */

import {
  type RequestActions,
  type RequiredPermission,
  UnmappedRequest,
  type WireRequest,
} from "./wire-request";

/** An S3 request as the mapping reads it. */
interface S3Request {
  method: string;
  query: URLSearchParams;
  headers: WireRequest["headers"];
  body: Buffer | undefined;
  bucketArn: string;
  objectArn: string;
}

/** One row of the mapping: an operation as it arrives, and what IAM authorizes for it. */
interface S3Operation {
  /** The API operation's name, as the SDK's `x-id` query parameter gives it when it sends one. */
  name: string;
  method: "GET" | "HEAD" | "PUT" | "POST" | "DELETE";
  on: "bucket" | "object";
  /** The query parameter naming the operation. */
  subresource?: string;
  /** Query parameters it must carry (`uploadId` for a part). */
  requires?: readonly string[];
  /** Query parameters it may carry besides. */
  accepts?: readonly string[];
  /** What else tells it apart (a copy's `x-amz-copy-source`). */
  when?: (request: S3Request) => boolean;
  permissions: (request: S3Request) => RequiredPermission[];
  /** A read of the object, which S3 answers 403 for a missing key unless the caller may list it. */
  objectRead?: true;
}

const OBJECT_READ_PARAMETERS = [
  "versionId",
  "partNumber",
  "response-cache-control",
  "response-content-disposition",
  "response-content-encoding",
  "response-content-language",
  "response-content-type",
  "response-expires",
];
const LIST_PARAMETERS = ["prefix", "delimiter", "encoding-type", "max-keys"];

const GRANTS = ["full-control", "read", "read-acp", "write", "write-acp"].map(
  (grant) => `x-amz-grant-${grant}`,
);
const ACL_ACTIONS = ["s3:PutObject", "s3:PutObjectAcl", "s3:PutObjectVersionAcl"];
const RETENTION_ACTIONS = ["s3:PutObject", "s3:PutObjectRetention"];

/**
 * The condition keys S3 takes from a request's headers (`[header, key, actions]`), each supplied
 * to the actions whose row of the "Actions" table lists it.
 */
const HEADER_CONDITION_KEYS: ReadonlyArray<readonly [string, string, readonly string[]]> = [
  ["x-amz-acl", "s3:x-amz-acl", ACL_ACTIONS],
  ...GRANTS.map((grant) => [grant, `s3:${grant}`, ACL_ACTIONS] as const),
  ...[
    "x-amz-metadata-directive",
    "x-amz-server-side-encryption",
    "x-amz-server-side-encryption-customer-algorithm",
    "x-amz-storage-class",
    "x-amz-website-redirect-location",
  ].map((name) => [name, `s3:${name}`, ["s3:PutObject"]] as const),
  ["x-amz-object-lock-mode", "s3:object-lock-mode", RETENTION_ACTIONS],
  ["x-amz-object-lock-retain-until-date", "s3:object-lock-retain-until-date", RETENTION_ACTIONS],
  ["x-amz-object-lock-legal-hold", "s3:object-lock-legal-hold", ["s3:PutObject", "s3:PutObjectLegalHold"]],
  ["if-none-match", "s3:if-none-match", ["s3:PutObject"]],
  ["if-match", "s3:if-match", ["s3:PutObject", "s3:DeleteObject"]],
];

/** `text` URL-decoded; a malformed escape is a request the mapping cannot read. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new UnmappedRequest(
      "no IAM mapping for an S3 request whose path or copy source is not URL-encoded",
    );
  }
}

function header(request: S3Request, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

/** `action` on `resource`, with the condition keys of the request's headers that the action lists. */
function permission(
  request: S3Request,
  action: string,
  resource: string,
  extra: Record<string, string> = {},
): RequiredPermission {
  const context: Record<string, string> = {};
  for (const [name, key, actions] of HEADER_CONDITION_KEYS) {
    const value = header(request, name);
    if (value !== undefined && actions.includes(action)) context[key] = value;
  }
  Object.assign(context, extra);
  return Object.keys(context).length > 0 ? { action, resource, context } : { action, resource };
}

/** `action` on the object, or `versionAction` with `s3:versionid` when the request names a version. */
function onVersion(request: S3Request, action: string, versionAction: string): RequiredPermission {
  const versionId = request.query.get("versionId");
  return versionId === null
    ? permission(request, action, request.objectArn)
    : permission(request, versionAction, request.objectArn, { "s3:versionid": versionId });
}

/** A listing's condition keys: `s3:prefix`, `s3:delimiter`, `s3:max-keys`, as the query gives them. */
function listing(request: S3Request, action: string): RequiredPermission[] {
  const context = Object.fromEntries(
    (["prefix", "delimiter", "max-keys"] as const).flatMap((name) => {
      const value = request.query.get(name);
      return value === null ? [] : [[`s3:${name}`, value]];
    }),
  );
  return [permission(request, action, request.bucketArn, context)];
}

const bypassesGovernance = (request: S3Request) =>
  header(request, "x-amz-bypass-governance-retention")?.toLowerCase() === "true";

/**
 * What a request that creates an object needs (PutObject, CopyObject, CreateMultipartUpload):
 * `s3:PutObject`, and for each thing its headers set on the new object, the action that sets it
 * on its own: Object Lock retention (`x-amz-object-lock-mode`, `-retain-until-date`:
 * `s3:PutObjectRetention`), a legal hold (`s3:PutObjectLegalHold`), an ACL (`x-amz-acl`,
 * `x-amz-grant-*`: `s3:PutObjectAcl`), tags (`x-amz-tagging`: `s3:PutObjectTagging`): PutObject's
 * and CopyObject's "Permissions", and the reference's operations table. A request encrypting with
 * a KMS key (`x-amz-server-side-encryption: aws:kms`) needs that key's permissions, which are not
 * mapped: it is refused.
 */
function objectCreation(request: S3Request): RequiredPermission[] {
  const encryption = header(request, "x-amz-server-side-encryption");
  if (encryption?.startsWith("aws:kms")) {
    throw new UnmappedRequest(`no IAM mapping for S3 ${request.method} with SSE-KMS (${encryption})`);
  }
  const object = request.objectArn;
  const sets = (...headers: string[]) => headers.some((name) => header(request, name) !== undefined);
  return [
    permission(request, "s3:PutObject", object, copySourceContext(request)),
    ...(sets("x-amz-object-lock-mode", "x-amz-object-lock-retain-until-date")
      ? [permission(request, "s3:PutObjectRetention", object)]
      : []),
    ...(sets("x-amz-object-lock-legal-hold") ? [permission(request, "s3:PutObjectLegalHold", object)] : []),
    ...(sets("x-amz-acl", ...GRANTS) ? [permission(request, "s3:PutObjectAcl", object)] : []),
    ...(sets("x-amz-tagging") ? [permission(request, "s3:PutObjectTagging", object)] : []),
  ];
}

/** The copy's source (`x-amz-copy-source: bucket/key[?versionId=...]`, URL-encoded): bucket and key, and its version. */
function copySource(request: S3Request): { object: string; versionId: string | null } {
  const raw = header(request, "x-amz-copy-source") ?? "";
  const question = raw.indexOf("?");
  const path = decoded((question < 0 ? raw : raw.slice(0, question)).replace(/^\//, ""));
  if (path.startsWith("arn:") || !/^[^/]+\/./.test(path)) {
    throw new UnmappedRequest(`no IAM mapping for an S3 copy whose source is not bucket/key`);
  }
  const versionId = question < 0 ? null : new URLSearchParams(raw.slice(question + 1)).get("versionId");
  return { object: path, versionId };
}

/** `s3:x-amz-copy-source` (`bucket/key`, decoded, as the reference's examples match it), on a copy. */
function copySourceContext(request: S3Request): Record<string, string> {
  return header(request, "x-amz-copy-source") === undefined
    ? {}
    : { "s3:x-amz-copy-source": copySource(request).object };
}

/** A copy's read of its source: `s3:GetObject`, or `s3:GetObjectVersion` for a given version (CopyObject's "Permissions"). */
function sourceRead(request: S3Request): RequiredPermission {
  const { object, versionId } = copySource(request);
  const resource = `arn:aws:s3:::${object}`;
  return versionId === null
    ? { action: "s3:GetObject", resource }
    : { action: "s3:GetObjectVersion", resource, context: { "s3:versionid": versionId } };
}

/** The request's XML body, as text; a chunk-encoded body (`aws-chunked`) is not read. */
function xmlBody(request: S3Request): string {
  if (header(request, "content-encoding")?.includes("aws-chunked")) {
    throw new UnmappedRequest(`no IAM mapping for an S3 ${request.method} whose XML body is aws-chunked`);
  }
  return request.body?.toString("utf8") ?? "";
}

/** The text of `xml`'s first `<element>`, unescaped. */
function xmlText(xml: string, element: string): string | undefined {
  const match = new RegExp(`<${element}>([\\s\\S]*?)</${element}>`).exec(xml);
  return match?.[1]?.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(Number(entity.slice(1)));
    return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[entity] as string;
  });
}

/** Condition keys from elements of the XML body, where present. */
function bodyContext(request: S3Request, keys: Record<string, string>): Record<string, string> {
  const xml = xmlBody(request);
  return Object.fromEntries(
    Object.entries(keys).flatMap(([key, element]) => {
      const value = xmlText(xml, element);
      return value === undefined ? [] : [[key, value]];
    }),
  );
}

/**
 * DeleteObjects (`POST ?delete`): each key's delete, `s3:DeleteObject`, or
 * `s3:DeleteObjectVersion` with `s3:versionid` for a key given with its version (DeleteObjects'
 * "Permissions"), and `s3:BypassGovernanceRetention` on each with `x-amz-bypass-governance-retention`.
 */
function deletions(request: S3Request): RequiredPermission[] {
  const objects = [...xmlBody(request).matchAll(/<Object>([\s\S]*?)<\/Object>/g)].map((match) => ({
    key: xmlText(match[1] as string, "Key"),
    versionId: xmlText(match[1] as string, "VersionId"),
  }));
  if (objects.length === 0 || objects.some((object) => object.key === undefined)) {
    throw new UnmappedRequest("no IAM mapping for an S3 POST ?delete that names no keys");
  }
  return objects.flatMap(({ key, versionId }) => {
    const resource = `${request.bucketArn}/${key}`;
    const deletion: RequiredPermission =
      versionId === undefined
        ? { action: "s3:DeleteObject", resource }
        : { action: "s3:DeleteObjectVersion", resource, context: { "s3:versionid": versionId } };
    return bypassesGovernance(request)
      ? [deletion, { action: "s3:BypassGovernanceRetention", resource }]
      : [deletion];
  });
}

/** One action on the bucket. */
const onBucket =
  (action: string) =>
  (request: S3Request): RequiredPermission[] => [permission(request, action, request.bucketArn)];

/** One action on the object. */
const onObject =
  (action: string) =>
  (request: S3Request): RequiredPermission[] => [permission(request, action, request.objectArn)];

/** `action` on the object, or `versionAction` on the version the request names. */
const versioned =
  (action: string, versionAction: string) =>
  (request: S3Request): RequiredPermission[] => [onVersion(request, action, versionAction)];

/** An object operation named by its subresource, which may name a version. */
const objectSubresource = (
  name: string,
  method: S3Operation["method"],
  subresource: string,
  permissions: S3Operation["permissions"],
): S3Operation => ({ name, method, on: "object", subresource, accepts: ["versionId"], permissions });

/** A bucket configuration operation named by its subresource: one action on the bucket. */
const bucketSubresource = (
  name: string,
  method: S3Operation["method"],
  subresource: string,
  action: string,
): S3Operation => ({ name, method, on: "bucket", subresource, permissions: onBucket(action) });

const copies = (request: S3Request) => header(request, "x-amz-copy-source") !== undefined;
const PART = ["partNumber", "uploadId"];

/** Every S3 operation the rehearsal maps; anything else is refused. */
const S3_OPERATIONS: readonly S3Operation[] = [
  // Objects: reads.
  {
    name: "GetObject",
    method: "GET",
    on: "object",
    accepts: OBJECT_READ_PARAMETERS,
    permissions: versioned("s3:GetObject", "s3:GetObjectVersion"),
    objectRead: true,
  },
  {
    // HeadObject's "Permissions": s3:GetObject.
    name: "HeadObject",
    method: "HEAD",
    on: "object",
    accepts: OBJECT_READ_PARAMETERS,
    permissions: versioned("s3:GetObject", "s3:GetObjectVersion"),
    objectRead: true,
  },
  {
    // GetObjectAttributes' "Permissions": s3:GetObject and s3:GetObjectAttributes, or with a
    // version id s3:GetObjectVersion and s3:GetObjectVersionAttributes.
    ...objectSubresource("GetObjectAttributes", "GET", "attributes", (r) => [
      onVersion(r, "s3:GetObject", "s3:GetObjectVersion"),
      onVersion(r, "s3:GetObjectAttributes", "s3:GetObjectVersionAttributes"),
    ]),
    objectRead: true,
  },
  objectSubresource("GetObjectAcl", "GET", "acl", versioned("s3:GetObjectAcl", "s3:GetObjectVersionAcl")),
  objectSubresource(
    "GetObjectTagging",
    "GET",
    "tagging",
    versioned("s3:GetObjectTagging", "s3:GetObjectVersionTagging"),
  ),
  // Retention and legal holds have no version-specific actions, nor the s3:versionid key.
  objectSubresource("GetObjectRetention", "GET", "retention", onObject("s3:GetObjectRetention")),
  objectSubresource("GetObjectLegalHold", "GET", "legal-hold", onObject("s3:GetObjectLegalHold")),
  // Objects: writes.
  { name: "PutObject", method: "PUT", on: "object", when: (r) => !copies(r), permissions: objectCreation },
  {
    name: "CopyObject",
    method: "PUT",
    on: "object",
    when: copies,
    permissions: (r) => [...objectCreation(r), sourceRead(r)],
  },
  objectSubresource("PutObjectAcl", "PUT", "acl", versioned("s3:PutObjectAcl", "s3:PutObjectVersionAcl")),
  objectSubresource(
    "PutObjectTagging",
    "PUT",
    "tagging",
    versioned("s3:PutObjectTagging", "s3:PutObjectVersionTagging"),
  ),
  // PutObjectRetention's "Permissions": s3:PutObjectRetention, and s3:BypassGovernanceRetention
  // to shorten or lift a governance-mode retention.
  objectSubresource("PutObjectRetention", "PUT", "retention", (r) => [
    permission(
      r,
      "s3:PutObjectRetention",
      r.objectArn,
      bodyContext(r, {
        "s3:object-lock-mode": "Mode",
        "s3:object-lock-retain-until-date": "RetainUntilDate",
      }),
    ),
    ...(bypassesGovernance(r) ? [permission(r, "s3:BypassGovernanceRetention", r.objectArn)] : []),
  ]),
  objectSubresource("PutObjectLegalHold", "PUT", "legal-hold", (r) => [
    permission(
      r,
      "s3:PutObjectLegalHold",
      r.objectArn,
      bodyContext(r, { "s3:object-lock-legal-hold": "Status" }),
    ),
  ]),
  // Objects: multipart uploads, authorized as s3:PutObject (the operations table), their parts
  // listed and the upload aborted by their own actions.
  {
    name: "CreateMultipartUpload",
    method: "POST",
    on: "object",
    subresource: "uploads",
    permissions: objectCreation,
  },
  {
    name: "UploadPart",
    method: "PUT",
    on: "object",
    requires: PART,
    when: (r) => !copies(r),
    permissions: onObject("s3:PutObject"),
  },
  {
    name: "UploadPartCopy",
    method: "PUT",
    on: "object",
    requires: PART,
    when: copies,
    permissions: (r) => [permission(r, "s3:PutObject", r.objectArn, copySourceContext(r)), sourceRead(r)],
  },
  {
    name: "CompleteMultipartUpload",
    method: "POST",
    on: "object",
    requires: ["uploadId"],
    permissions: onObject("s3:PutObject"),
  },
  {
    name: "AbortMultipartUpload",
    method: "DELETE",
    on: "object",
    requires: ["uploadId"],
    permissions: onObject("s3:AbortMultipartUpload"),
  },
  {
    name: "ListParts",
    method: "GET",
    on: "object",
    requires: ["uploadId"],
    accepts: ["max-parts", "part-number-marker"],
    permissions: onObject("s3:ListMultipartUploadParts"),
  },
  // Objects: deletes. DeleteObject's "Permissions": s3:DeleteObject, s3:DeleteObjectVersion for a
  // version id; s3:BypassGovernanceRetention to delete a version under governance-mode retention.
  {
    name: "DeleteObject",
    method: "DELETE",
    on: "object",
    accepts: ["versionId"],
    permissions: (r) => [
      onVersion(r, "s3:DeleteObject", "s3:DeleteObjectVersion"),
      ...(bypassesGovernance(r) ? [permission(r, "s3:BypassGovernanceRetention", r.objectArn)] : []),
    ],
  },
  objectSubresource(
    "DeleteObjectTagging",
    "DELETE",
    "tagging",
    versioned("s3:DeleteObjectTagging", "s3:DeleteObjectVersionTagging"),
  ),
  { name: "DeleteObjects", method: "POST", on: "bucket", subresource: "delete", permissions: deletions },
  // Buckets: listings, with the condition keys s3:prefix, s3:delimiter, s3:max-keys.
  {
    name: "ListObjectsV2",
    method: "GET",
    on: "bucket",
    requires: ["list-type"],
    accepts: [...LIST_PARAMETERS, "continuation-token", "fetch-owner", "start-after"],
    when: (r) => r.query.get("list-type") === "2",
    permissions: (r) => listing(r, "s3:ListBucket"),
  },
  {
    name: "ListObjects",
    method: "GET",
    on: "bucket",
    accepts: [...LIST_PARAMETERS, "marker"],
    permissions: (r) => listing(r, "s3:ListBucket"),
  },
  {
    name: "ListObjectVersions",
    method: "GET",
    on: "bucket",
    subresource: "versions",
    accepts: [...LIST_PARAMETERS, "key-marker", "version-id-marker"],
    permissions: (r) => listing(r, "s3:ListBucketVersions"),
  },
  {
    // s3:ListBucketMultipartUploads takes none of the listing condition keys.
    name: "ListMultipartUploads",
    method: "GET",
    on: "bucket",
    subresource: "uploads",
    accepts: ["prefix", "delimiter", "encoding-type", "max-uploads", "key-marker", "upload-id-marker"],
    permissions: onBucket("s3:ListBucketMultipartUploads"),
  },
  // HeadBucket's "Permissions": s3:ListBucket.
  { name: "HeadBucket", method: "HEAD", on: "bucket", permissions: onBucket("s3:ListBucket") },
  // Buckets: the configuration the stacks set.
  bucketSubresource("GetBucketLocation", "GET", "location", "s3:GetBucketLocation"),
  bucketSubresource("GetBucketVersioning", "GET", "versioning", "s3:GetBucketVersioning"),
  bucketSubresource("PutBucketVersioning", "PUT", "versioning", "s3:PutBucketVersioning"),
  bucketSubresource("GetBucketNotificationConfiguration", "GET", "notification", "s3:GetBucketNotification"),
  bucketSubresource("PutBucketNotificationConfiguration", "PUT", "notification", "s3:PutBucketNotification"),
  bucketSubresource(
    "GetObjectLockConfiguration",
    "GET",
    "object-lock",
    "s3:GetBucketObjectLockConfiguration",
  ),
  bucketSubresource(
    "PutObjectLockConfiguration",
    "PUT",
    "object-lock",
    "s3:PutBucketObjectLockConfiguration",
  ),
  bucketSubresource("GetBucketPolicy", "GET", "policy", "s3:GetBucketPolicy"),
  bucketSubresource("PutBucketPolicy", "PUT", "policy", "s3:PutBucketPolicy"),
  bucketSubresource("DeleteBucketPolicy", "DELETE", "policy", "s3:DeleteBucketPolicy"),
];

/**
 * The IAM actions, resources and condition keys of an S3 request, or {@link UnmappedRequest} for
 * an operation the mapping does not know (an unknown subresource, a parameter its operation does
 * not take, a request on no bucket), naming its method and query parameter names.
 *
 * @example
 * s3RequestActions({ method: "GET", url: "/b/k?acl", headers: {} });
 * // { service: "s3", operation: "GetObjectAcl", permissions: [{ action: "s3:GetObjectAcl", resource: "arn:aws:s3:::b/k" }] }
 */
export function s3RequestActions(wire: WireRequest): RequestActions {
  const url = new URL(wire.url, "http://s3.local");
  const method = wire.method.toUpperCase();
  const [encodedBucket = "", ...rest] = url.pathname.slice(1).split("/");
  const bucket = decoded(encodedBucket);
  const key = rest.map(decoded).join("/");
  const names = [...new Set(url.searchParams.keys())].filter((name) => name !== "x-id");
  const on = key === "" ? "bucket" : "object";
  if (bucket === "") {
    throw new UnmappedRequest(`no IAM mapping for S3 ${method} on no bucket (the service's own operations)`);
  }
  const parameters = names.map((name) => `?${name}`).join(" ");
  const described = `S3 ${method} on ${on === "bucket" ? "a bucket" : "an object"} ${
    parameters === "" ? "without a subresource" : `with ${parameters}`
  }`;
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const request: S3Request = {
    method,
    query: url.searchParams,
    headers: wire.headers,
    body: wire.body,
    bucketArn,
    objectArn: `${bucketArn}/${key}`,
  };
  const operation = S3_OPERATIONS.find((candidate) => {
    if (candidate.on !== on || candidate.method !== method) return false;
    const taken = new Set([
      ...(candidate.subresource ? [candidate.subresource] : []),
      ...(candidate.requires ?? []),
      ...(candidate.accepts ?? []),
    ]);
    return (
      (candidate.subresource === undefined || names.includes(candidate.subresource)) &&
      (candidate.requires ?? []).every((name) => names.includes(name)) &&
      names.every((name) => taken.has(name)) &&
      (candidate.when?.(request) ?? true)
    );
  });
  if (!operation) throw new UnmappedRequest(`no IAM mapping for ${described}`);
  // The SDK names what it sent in `x-id` for some operations: a mapping that reads another is wrong.
  const sent = url.searchParams.get("x-id");
  if (sent !== null && sent !== operation.name) {
    throw new UnmappedRequest(
      `no IAM mapping for ${described}: the SDK sent ${sent}, read as ${operation.name}`,
    );
  }
  return {
    service: "s3",
    operation: operation.name,
    permissions: operation.permissions(request),
    ...(operation.objectRead ? { objectRead: { bucket, key } } : {}),
  };
}
