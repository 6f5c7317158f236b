import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** The account the stand-in answers for: account 111122223333 in `region`. */
export interface StandInAccount {
  region: string;
  /** SageMaker model packages by ARN, with their `ModelPackageStatus`. */
  modelPackages?: Record<string, { status: "Pending" | "InProgress" | "Completed" | "Failed" | "Deleting" }>;
  /** When true, DescribeModelPackage is refused with `AccessDeniedException`. */
  refuseModelPackages?: boolean;
  /** SageMaker endpoints by name. */
  endpoints?: Record<string, { status: string; variants: string[]; failureReason?: string }>;
  /** SageMaker quotas with an applied value (ListServiceQuotas). */
  appliedQuotas?: StandInQuota[];
  /** SageMaker's default quotas (ListAWSDefaultServiceQuotas). */
  defaultQuotas?: StandInQuota[];
  /** Bedrock foundation models by id; `denied` ones are refused with `AccessDeniedException`. */
  foundationModels?: Record<string, { inferenceTypes?: string[]; denied?: boolean }>;
  /** Bedrock system-defined inference profiles by id, with the model ids they route to, per region. */
  inferenceProfiles?: Record<string, { regions: string[]; modelId: string }>;
  /** Answer every SageMaker call with this JSON 1.1 error instead (e.g. `UnrecognizedClientException`). */
  sagemakerError?: string;
  /**
   * The account's effective AI services opt-out policy, as Organizations' DescribeEffectivePolicy
   * returns it in `PolicyContent` (an object is sent as its JSON text). Without it, and without
   * `organizationsError`, no opt-out policy applies: `EffectivePolicyNotFoundException`.
   */
  aiOptOutPolicy?: object | string;
  /**
   * Answer DescribeEffectivePolicy with this Organizations error instead: one of
   * {@link ORGANIZATIONS_ERRORS}' names (with AWS's wording), or any other name.
   */
  organizationsError?: string;
}

/** Organizations' errors as it words them for the stand-in's account. */
export const ORGANIZATIONS_ERRORS: Record<string, string> = {
  EffectivePolicyNotFoundException:
    "An effective policy of the specified type was not found for the specified target.",
  AWSOrganizationsNotInUseException: "Your account is not a member of an organization.",
  AccessDeniedException:
    "User: arn:aws:iam::111122223333:user/deployer is not authorized to perform: organizations:DescribeEffectivePolicy because no identity-based policy allows the organizations:DescribeEffectivePolicy action",
  TooManyRequestsException:
    "You have sent too many requests in too short a period of time. The quota helps protect against denial-of-service attacks. Try again later.",
};

/** One quota as the stand-in lists it. */
export interface StandInQuota {
  name: string;
  code: string;
  value: number;
}

/** A request the stand-in received, with the service and region of its SigV4 credential scope. */
export interface RecordedRequest {
  method: string;
  path: string;
  target?: string | undefined;
  signingService?: string | undefined;
  signingRegion?: string | undefined;
  body: string;
}

/** A running stand-in: `url` for `endpoint` / `AWS_ENDPOINT_URL_*`. */
export interface AwsStandIn {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const ACCOUNT = "111122223333";

/** Every page of ListServiceQuotas holds at most this many quotas unless MaxResults says fewer. */
const QUOTA_PAGE = 3;

/** Quotas listed before and after the one under test, so that the client must page. */
const OTHER_QUOTAS: StandInQuota[] = [
  { name: "ml.m5.large for endpoint usage", code: "L-0F1A4B6F", value: 4 },
  { name: "ml.g5.xlarge for endpoint usage", code: "L-1D0C9B3B", value: 2 },
  { name: "ml.g6e.xlarge for training job usage", code: "L-3C7F1A21", value: 1 },
  { name: "Number of endpoints", code: "L-4B2E7C88", value: 100 },
];

class WireError {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly message: string,
  ) {}
}

/**
 * Starts a loopback HTTP server speaking the wire formats the SDK clients use:
 * SageMaker and Service Quotas as AWS JSON 1.1 (`POST /`, `X-Amz-Target`, content type
 * `application/x-amz-json-1.1`, errors as `{"__type": ..., "message": ...}`), Organizations as
 * AWS JSON 1.1 too (`AWSOrganizationsV20161128.DescribeEffectivePolicy`, errors as
 * `{"__type": ..., "Message": ...}` with HTTP 400), Bedrock's control plane as REST-JSON
 * (`GET /foundation-models/{id}`, `GET /inference-profiles/{id}`, errors named by the
 * `x-amzn-ErrorType` header). A request whose SigV4 scope names the wrong service is refused.
 */
export async function startAwsStandIn(account: StandInAccount): Promise<AwsStandIn> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(
        request.headers.authorization ?? "",
      );
      const recorded: RecordedRequest = {
        method: request.method ?? "",
        path: request.url ?? "",
        target: header(request, "x-amz-target"),
        signingRegion: scope?.[1],
        signingService: scope?.[2],
        body,
      };
      requests.push(recorded);
      answer(account, recorded, request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function answer(
  account: StandInAccount,
  recorded: RecordedRequest,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  const target = recorded.target;
  if (recorded.method === "POST" && recorded.path === "/" && target) {
    const [prefix] = target.split(".");
    const service =
      prefix === "SageMaker"
        ? "sagemaker"
        : prefix === "AWSOrganizationsV20161128"
          ? "organizations"
          : "servicequotas";
    try {
      if (header(request, "content-type") !== "application/x-amz-json-1.1") {
        throw new WireError(400, "SerializationException", "expected application/x-amz-json-1.1");
      }
      signedFor(recorded, service);
      const input = JSON.parse(recorded.body || "{}") as Record<string, unknown>;
      const output =
        service === "sagemaker"
          ? sagemaker(account, target, input)
          : service === "organizations"
            ? organizations(account, target, input)
            : serviceQuotas(account, target, input);
      json11(response, 200, output);
    } catch (error) {
      if (!(error instanceof WireError)) throw error;
      // Organizations spells the member `Message`; SageMaker and Service Quotas `message`.
      const wording = service === "organizations" ? "Message" : "message";
      json11(response, error.status, { __type: error.type, [wording]: error.message });
    }
    return;
  }
  try {
    signedFor(recorded, "bedrock");
    restJson(response, 200, bedrock(account, recorded));
  } catch (error) {
    if (!(error instanceof WireError)) throw error;
    // Bedrock names the error in the header, with the suffix AWS's front end appends.
    response.setHeader(
      "x-amzn-ErrorType",
      `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    );
    restJson(response, error.status, { message: error.message });
  }
}

function signedFor(recorded: RecordedRequest, service: string): void {
  if (recorded.signingService !== service) {
    throw new WireError(
      403,
      "InvalidSignatureException",
      `Credential should be scoped to correct service: '${service}', not '${recorded.signingService}'.`,
    );
  }
}

function json11(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    "content-type": "application/x-amz-json-1.1",
    "x-amzn-RequestId": "00000000-0000-4000-8000-000000000000",
  });
  response.end(JSON.stringify(body));
}

function restJson(response: ServerResponse, status: number, body: unknown): void {
  response.statusCode = status;
  response.setHeader("content-type", "application/json");
  response.setHeader("x-amzn-RequestId", "00000000-0000-4000-8000-000000000001");
  response.end(JSON.stringify(body));
}

/** Seconds since the epoch: AWS JSON 1.1's timestamp format. */
const CREATED = 1_767_225_600;

function sagemaker(account: StandInAccount, target: string, input: Record<string, unknown>): unknown {
  if (account.sagemakerError)
    throw new WireError(
      400,
      account.sagemakerError,
      "The security token included in the request is invalid.",
    );
  const region = account.region;
  if (target === "SageMaker.DescribeModelPackage") {
    const name = String(input.ModelPackageName);
    if (account.refuseModelPackages) {
      throw new WireError(
        400,
        "AccessDeniedException",
        `User: arn:aws:iam::${ACCOUNT}:user/deployer is not authorized to perform: sagemaker:DescribeModelPackage on resource: ${name}`,
      );
    }
    const found = account.modelPackages?.[name];
    if (!found) throw new WireError(400, "ValidationException", `ModelPackage ${name} does not exist.`);
    return {
      ModelPackageName: name.split("/")[1],
      ModelPackageArn: name,
      ModelPackageDescription: "Sonic",
      CreationTime: CREATED,
      ModelPackageStatus: found.status,
      ModelPackageStatusDetails: {
        ValidationStatuses: [],
        ImageScanStatuses:
          found.status === "Failed"
            ? [{ Name: "sonic", Status: "Failed", FailureReason: "image scan failed" }]
            : [{ Name: "sonic", Status: "Completed" }],
      },
      CertifyForMarketplace: true,
    };
  }
  if (target === "SageMaker.DescribeEndpoint") {
    const name = String(input.EndpointName);
    const found = account.endpoints?.[name];
    const arn = `arn:aws:sagemaker:${region}:${ACCOUNT}:endpoint/${name.toLowerCase()}`;
    if (!found) throw new WireError(400, "ValidationException", `Could not find endpoint "${arn}".`);
    return {
      EndpointName: name,
      EndpointArn: arn,
      EndpointConfigName: `${name}-config`,
      ProductionVariants: found.variants.map((variant) => ({
        VariantName: variant,
        CurrentWeight: 1.0,
        DesiredWeight: 1.0,
        CurrentInstanceCount: 1,
        DesiredInstanceCount: 1,
      })),
      EndpointStatus: found.status,
      ...(found.failureReason ? { FailureReason: found.failureReason } : {}),
      CreationTime: CREATED,
      LastModifiedTime: CREATED + 60.5,
    };
  }
  throw new WireError(400, "UnknownOperationException", "");
}

function serviceQuotas(account: StandInAccount, target: string, input: Record<string, unknown>): unknown {
  const applied = target === "ServiceQuotasV20190624.ListServiceQuotas";
  if (!applied && target !== "ServiceQuotasV20190624.ListAWSDefaultServiceQuotas") {
    throw new WireError(400, "UnknownOperationException", "");
  }
  if (input.ServiceCode !== "sagemaker") {
    throw new WireError(
      400,
      "NoSuchResourceException",
      `The request failed because the specified service does not exist.`,
    );
  }
  const own = (applied ? account.appliedQuotas : account.defaultQuotas) ?? [];
  const all = [OTHER_QUOTAS[0]!, OTHER_QUOTAS[1]!, OTHER_QUOTAS[2]!, ...own, OTHER_QUOTAS[3]!];
  const start = typeof input.NextToken === "string" ? Number(input.NextToken) : 0;
  const size = typeof input.MaxResults === "number" ? Math.min(input.MaxResults, QUOTA_PAGE) : QUOTA_PAGE;
  const page = all.slice(start, start + size);
  const owner = applied ? ACCOUNT : "";
  return {
    ...(start + size < all.length ? { NextToken: String(start + size) } : {}),
    Quotas: page.map((quota) => ({
      ServiceCode: "sagemaker",
      ServiceName: "Amazon SageMaker",
      QuotaArn: `arn:aws:servicequotas:${account.region}:${owner}:sagemaker/${quota.code}`,
      QuotaCode: quota.code,
      QuotaName: quota.name,
      Value: quota.value,
      Unit: "None",
      Adjustable: true,
      GlobalQuota: false,
      QuotaAppliedAtLevel: "ACCOUNT",
    })),
  };
}

function organizations(account: StandInAccount, target: string, input: Record<string, unknown>): unknown {
  if (target !== "AWSOrganizationsV20161128.DescribeEffectivePolicy") {
    throw new WireError(400, "UnknownOperationException", "");
  }
  if (account.organizationsError) {
    const name = account.organizationsError;
    throw new WireError(400, name, ORGANIZATIONS_ERRORS[name] ?? `${name} from the stand-in.`);
  }
  if (input.PolicyType !== "AISERVICES_OPT_OUT_POLICY") {
    throw new WireError(400, "InvalidInputException", "The stand-in knows only AISERVICES_OPT_OUT_POLICY.");
  }
  const policy = account.aiOptOutPolicy;
  if (policy === undefined) {
    throw new WireError(
      400,
      "EffectivePolicyNotFoundException",
      ORGANIZATIONS_ERRORS.EffectivePolicyNotFoundException ?? "",
    );
  }
  return {
    EffectivePolicy: {
      PolicyContent: typeof policy === "string" ? policy : JSON.stringify(policy),
      LastUpdatedTimestamp: CREATED,
      TargetId: typeof input.TargetId === "string" ? input.TargetId : ACCOUNT,
      PolicyType: "AISERVICES_OPT_OUT_POLICY",
    },
  };
}

function bedrock(account: StandInAccount, recorded: RecordedRequest): unknown {
  const region = account.region;
  const match = /^\/(foundation-models|inference-profiles)\/([^/?]+)$/.exec(recorded.path);
  if (recorded.method !== "GET" || !match) throw new WireError(404, "UnknownOperationException", "");
  const id = decodeURIComponent(match[2]!);
  if (match[1] === "foundation-models") {
    const model = account.foundationModels?.[id];
    if (!model) throw new WireError(400, "ValidationException", "The provided model identifier is invalid.");
    if (model.denied) {
      throw new WireError(
        403,
        "AccessDeniedException",
        "You don't have access to the model with the specified model ID.",
      );
    }
    return {
      modelDetails: {
        modelArn: `arn:aws:bedrock:${region}::foundation-model/${id}`,
        modelId: id,
        modelName: id,
        providerName: id.split(".")[0],
        inputModalities: ["TEXT"],
        outputModalities: ["TEXT"],
        responseStreamingSupported: true,
        customizationsSupported: [],
        inferenceTypesSupported: model.inferenceTypes ?? ["ON_DEMAND"],
        modelLifecycle: { status: "ACTIVE" },
      },
    };
  }
  const profile = account.inferenceProfiles?.[id];
  if (!profile) throw new WireError(404, "ResourceNotFoundException", "Inference profile not found.");
  return {
    inferenceProfileName: id,
    inferenceProfileArn: `arn:aws:bedrock:${region}:${ACCOUNT}:inference-profile/${id}`,
    inferenceProfileId: id,
    models: profile.regions.map((modelRegion) => ({
      modelArn: `arn:aws:bedrock:${modelRegion}::foundation-model/${profile.modelId}`,
    })),
    status: "ACTIVE",
    type: "SYSTEM_DEFINED",
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
  };
}
