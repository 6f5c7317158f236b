import { randomUUID } from "node:crypto";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Decision, PolicyEvaluator } from "./policy-evaluator";
import {
  type ArnScope,
  type RequestActions,
  requestActions,
  signingOf,
  UnmappedRequest,
} from "./request-actions";
import type { RolePlan } from "./stage-plan";

/** Who a request comes from: a function's or a state machine's role, by the access key it signs with. */
export interface Principal {
  /** What the rehearsal prints for it (`StageIngest`, `voxtrail-dev-voicemail`). */
  label: string;
  role: RolePlan;
}

/** One request the proxy (or the rehearsal, for a service integration) judged. */
export interface CallRecord {
  principal: string;
  /** The workflow the rehearsal was running when the call was made. */
  workflow?: string;
  service: string;
  operation: string;
  allowed: boolean;
  /** IAM's decision on each permission the request needs. */
  decisions: Decision[];
  /** An AWS behaviour the proxy played that the emulator lacks, when it applied. */
  modelled?: string;
  /** Why the request was refused, when it was. */
  refusal?: string;
  /** Set when the mapping did not know the request: refused unjudged, a gap in the rehearsal that fails it. */
  unmapped?: true;
}

/** Options of {@link AuthorizingProxy.start}. */
export interface AuthorizingProxyOptions {
  evaluator: PolicyEvaluator;
  scope: ArnScope;
  /** Principals by the access key id their credentials carry. */
  principals: ReadonlyMap<string, Principal>;
  /** The roles a service may assume on a caller's request (data-access roles), by ARN. */
  serviceRoles?: ReadonlyMap<string, RolePlan>;
  /** The access key id of the rehearsal's own set-up calls (create the bucket, upload): not authorized. */
  setupAccessKeyId: string;
  /** Where each signing service is served: moto, the local Sonic endpoint, a stand-in. */
  upstreams: Readonly<Record<string, string>>;
  onCall?: (call: CallRecord) => void;
}

/**
 * A loopback HTTP proxy in front of the local services that plays IAM: it finds the principal by
 * the SigV4 access key id, maps the request to the IAM actions and resources AWS authorizes
 * (request-actions.ts), evaluates them against that principal's deployed policies, and answers
 * AccessDenied in the service's own wire format, or forwards the request unchanged. It also plays
 * what S3 does and moto does not: a GET or HEAD of a missing key is 403 AccessDenied, not 404,
 * unless the caller may list the bucket at that key (GetObject/HeadObject API reference). Which
 * `s3:prefix` S3 evaluates for that check is not documented; the proxy uses the key itself.
 *
 * @example
 * const proxy = await AuthorizingProxy.start({ evaluator, scope, principals, setupAccessKeyId, upstreams });
 * new S3Client({ endpoint: proxy.url, credentials: { accessKeyId: "AKREHEARSAL1", secretAccessKey: "x" } });
 */
export class AuthorizingProxy {
  private constructor(
    readonly url: string,
    private readonly server: ReturnType<typeof createServer>,
  ) {}

  static async start(options: AuthorizingProxyOptions): Promise<AuthorizingProxy> {
    const server = createServer((incoming, response) => {
      handle(options, incoming, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
        response.end(`rehearsal proxy: ${error instanceof Error ? error.message : String(error)}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return new AuthorizingProxy(`http://127.0.0.1:${port}`, server);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function handle(
  options: AuthorizingProxyOptions,
  incoming: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const body = await readBody(incoming);
  const wire = {
    method: incoming.method ?? "GET",
    url: incoming.url ?? "/",
    headers: incoming.headers,
    body,
  };
  const { accessKeyId, service } = signingOf(incoming.headers);
  const upstream = options.upstreams[service];
  if (!upstream) throw new Error(`no local service answers ${service}`);
  if (accessKeyId === options.setupAccessKeyId) {
    await forward(upstream, incoming, body, response);
    return;
  }

  const principal = options.principals.get(accessKeyId);
  if (!principal)
    return deny(response, service, wire.method, "the security token included in the request is invalid");
  let actions: RequestActions;
  try {
    actions = requestActions(service, wire, options.scope);
  } catch (error) {
    if (!(error instanceof UnmappedRequest)) throw error;
    const call = { principal: principal.label, service, operation: "unknown", allowed: false, decisions: [] };
    options.onCall?.({ ...call, refusal: error.message, unmapped: true });
    return deny(response, service, wire.method, `rehearsal: ${error.message}`);
  }
  const decisions = await Promise.all(
    actions.permissions.map(({ assumedRole, ...permission }) => {
      // A permission of a role the service assumes: that role's to have; a role the stage does not
      // deploy has none.
      const role = assumedRole ? options.serviceRoles?.get(assumedRole) : principal.role;
      if (role) return options.evaluator.authorize({ role, ...permission });
      return Promise.resolve(unknownRole(assumedRole as string, permission));
    }),
  );
  const refused = decisions.find((decision) => !decision.allowed);
  const call: CallRecord = {
    principal: principal.label,
    service,
    operation: actions.operation,
    allowed: !refused,
    decisions,
  };
  if (refused) {
    options.onCall?.({ ...call, refusal: refused.refusal ?? "denied" });
    return deny(response, service, wire.method, notAuthorized(principal, refused));
  }
  // A missing key: S3 answers 404 only if the caller may know it is missing (ListBucket there).
  let listing: Decision | undefined;
  await forward(upstream, incoming, body, response, async (status) => {
    if (status !== 404 || !actions.objectRead) return false;
    const { bucket, key } = actions.objectRead;
    listing = await options.evaluator.authorize({
      role: principal.role,
      action: "s3:ListBucket",
      resource: `arn:aws:s3:::${bucket}`,
      context: { "s3:prefix": key },
    });
    return !listing.allowed;
  });
  const answered: Decision | undefined = listing;
  options.onCall?.(
    answered === undefined
      ? call
      : answered.allowed
        ? { ...call, decisions: [...decisions, answered] }
        : {
            ...call,
            allowed: false,
            decisions: [...decisions, answered],
            modelled: "missing key answered 403: no s3:ListBucket allows the caller to know it is missing",
            refusal: "AccessDenied for a missing key",
          },
  );
}

/** The decision on a permission of a role the stage does not deploy: refused. */
function unknownRole(roleArn: string, permission: { action: string; resource: string }): Decision {
  return {
    role: roleArn,
    action: permission.action,
    resource: permission.resource,
    context: {},
    allowed: false,
    refusal: `the request passes ${roleArn}, which the stage does not deploy`,
  };
}

/**
 * Forwards the request and streams the answer back. When `denyInstead` resolves true for the
 * upstream's status, the caller gets S3's 403 AccessDenied instead, and the upstream is drained.
 */
async function forward(
  upstream: string,
  incoming: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
  denyInstead?: (status: number) => Promise<boolean>,
): Promise<void> {
  const target = new URL(incoming.url ?? "/", upstream);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      target,
      { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        const decide = denyInstead ? denyInstead(answer.statusCode ?? 0) : Promise.resolve(false);
        decide
          .then((deny) => {
            if (deny) {
              answer.resume();
              const requestId = randomUUID();
              response.writeHead(403, { "content-type": "application/xml", "x-amz-request-id": requestId });
              response.end(
                incoming.method === "HEAD" ? undefined : s3AccessDenied("Access Denied", requestId),
              );
              resolve();
              return;
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
            answer.on("end", () => resolve());
            answer.on("error", reject);
          })
          .catch(reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

async function readBody(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function notAuthorized(principal: Principal, decision: Decision): string {
  const roleName = principal.role.arn.split("/").pop();
  return (
    `User: arn:aws:sts::${principal.role.arn.split(":")[4]}:assumed-role/${roleName}/rehearsal is not authorized ` +
    `to perform: ${decision.action} on resource: "${decision.resource}" because ${decision.refusal}`
  );
}

/** AccessDenied as each protocol spells it: S3's XML error, or the JSON protocols' `__type`. */
function deny(response: ServerResponse, service: string, method: string, message: string): void {
  const requestId = randomUUID();
  if (service === "s3") {
    response.writeHead(403, { "content-type": "application/xml", "x-amz-request-id": requestId });
    response.end(method === "HEAD" ? undefined : s3AccessDenied(message, requestId));
    return;
  }
  response.writeHead(service === "sagemaker" || service === "bedrock" ? 403 : 400, {
    "content-type": "application/x-amz-json-1.0",
    "x-amzn-requestid": requestId,
    "x-amzn-errortype": "AccessDeniedException",
  });
  response.end(JSON.stringify({ __type: "AccessDeniedException", message, Message: message }));
}

function s3AccessDenied(message: string, requestId: string): string {
  const escaped = message.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${escaped}</Message><RequestId>${requestId}</RequestId></Error>`;
}
