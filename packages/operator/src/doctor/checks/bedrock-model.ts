import {
  type BedrockClient,
  type FoundationModelDetails,
  GetFoundationModelCommand,
  GetInferenceProfileCommand,
  type GetInferenceProfileCommandOutput,
} from "@aws-sdk/client-bedrock";
import { errorCode, type Finding, isAccessDenied, missing, ok, unchecked } from "../findings";

const CHECK = "bedrock-model";

/** Geographic prefixes of Bedrock's system-defined (cross-region) inference profile ids. */
const PROFILE_PREFIX = /^(us|us-gov|eu|apac|global|jp|au|ca)\./;

/**
 * True when `modelId` names an inference profile rather than a foundation model: a system-defined
 * profile id (`us.anthropic.claude-...`, `eu.`, `apac.`, `global.`, ...) or a profile ARN.
 */
export function isInferenceProfileId(modelId: string): boolean {
  return PROFILE_PREFIX.test(modelId) || /:(application-)?inference-profile\//.test(modelId);
}

/** What to do when the account may not use a model, for the messages. */
function enableAccess(modelId: string, region: string): string {
  return `enable model access to ${modelId} in the Bedrock console (Model access) for ${region}`;
}

/** The account is refused or Bedrock does not know the identifier: a finding; else undefined. */
function refusal(error: unknown, what: string, modelId: string, region: string): Finding | undefined {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : "";
  if (isAccessDenied(error) || code === "ResourceNotFoundException") {
    return missing(
      CHECK,
      modelId,
      `${what} is not available to this account in ${region} (${code}: ${message}): ${enableAccess(modelId, region)}`,
    );
  }
  if (code === "ValidationException") {
    return missing(
      CHECK,
      modelId,
      `${what} is not an identifier Bedrock knows in ${region} (${code}: ${message}): check providers.bedrockModelId and the region`,
    );
  }
  return undefined;
}

/**
 * The foundation model an inference profile routes to in `region`: the model ARN of that region
 * among the profile's models (else the first), as a model id; else the profile id without its
 * geographic prefix.
 */
function profileModelId(
  profile: GetInferenceProfileCommandOutput,
  profileId: string,
  region: string,
): string {
  const arns = (profile.models ?? []).map((model) => model.modelArn ?? "").filter((arn) => arn !== "");
  const arn = arns.find((candidate) => candidate.split(":")[3] === region) ?? arns[0];
  const fromArn = arn?.split("foundation-model/")[1];
  return fromArn ?? profileId.replace(PROFILE_PREFIX, "");
}

/**
 * Checks that the stage's Bedrock reasoner may use `providers.bedrockModelId` in the region:
 * for an inference profile id, `GetInferenceProfile`, then for the foundation model (the one
 * the profile routes to in this region) `GetFoundationModel`. `AccessDeniedException` or
 * `ResourceNotFoundException` means model access is not enabled; a foundation model that cannot
 * be invoked on demand needs an inference profile id instead.
 *
 * @example
 * await checkBedrockModel("anthropic.claude-3-5-haiku-20241022-v1:0", bedrock, "us-east-1");
 */
export async function checkBedrockModel(
  modelId: string,
  bedrock: BedrockClient,
  region: string,
): Promise<Finding[]> {
  let foundationModelId = modelId;
  let via = "";
  if (isInferenceProfileId(modelId)) {
    let profile: GetInferenceProfileCommandOutput;
    try {
      profile = await bedrock.send(new GetInferenceProfileCommand({ inferenceProfileIdentifier: modelId }));
    } catch (error) {
      const found = refusal(error, `inference profile ${modelId}`, modelId, region);
      return [found ?? unchecked(CHECK, modelId, `get inference profile ${modelId}`, error)];
    }
    foundationModelId = profileModelId(profile, modelId, region);
    via = ` through inference profile ${modelId}`;
  }
  let details: FoundationModelDetails | undefined;
  try {
    details = (await bedrock.send(new GetFoundationModelCommand({ modelIdentifier: foundationModelId })))
      .modelDetails;
  } catch (error) {
    const found = refusal(error, `foundation model ${foundationModelId}${via}`, foundationModelId, region);
    return [found ?? unchecked(CHECK, modelId, `get foundation model ${foundationModelId}`, error)];
  }
  const inferenceTypes: string[] = details?.inferenceTypesSupported ?? [];
  if (via === "" && inferenceTypes.length > 0 && !inferenceTypes.includes("ON_DEMAND")) {
    return [
      missing(
        CHECK,
        modelId,
        `foundation model ${modelId} cannot be invoked on demand in ${region} (it supports ${inferenceTypes.join(", ")}): set providers.bedrockModelId to an inference profile id for it (e.g. us.${modelId})`,
      ),
    ];
  }
  const lifecycle = details?.modelLifecycle?.status === "LEGACY" ? " (LEGACY: plan a successor)" : "";
  return [
    ok(
      CHECK,
      modelId,
      `foundation model ${details?.modelId ?? foundationModelId}${via} is available in ${region}${lifecycle}`,
    ),
  ];
}
