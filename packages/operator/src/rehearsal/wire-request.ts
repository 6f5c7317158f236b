/**
 * What the request mapping reads of an HTTP request and what it answers: the IAM authorizations
 * a request needs, or a refusal naming what the mapping does not know.
 */

/** One authorization IAM makes for a request (a request may need several, e.g. a copy). */
export interface RequiredPermission {
  action: string;
  resource: string;
  context?: Record<string, string>;
  /**
   * The role, by ARN, a service assumes to act on the caller's request (a data-access role the
   * request passes): this permission is the role's to have, not the caller's.
   */
  assumedRole?: string;
}

/** A request, understood: its service and operation, and what it needs. */
export interface RequestActions {
  service: string;
  operation: string;
  permissions: RequiredPermission[];
  /** A read of one object: S3 answers 403 for a missing key unless ListBucket allows the caller to know. */
  objectRead?: { bucket: string; key: string };
}

/** The part of an HTTP request the mapping reads. */
export interface WireRequest {
  method: string;
  /** Path and query, as sent (`/bucket/key?versionId=...`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body, where the resource or a condition key is in it (JSON protocols, S3's DeleteObjects). */
  body?: Buffer;
}

/** A request the rehearsal cannot map to IAM actions: refused, so an unmapped call is never waved through. */
export class UnmappedRequest extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnmappedRequest";
  }
}
