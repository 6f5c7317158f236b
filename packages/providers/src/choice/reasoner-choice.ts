import type { CloudProviderName } from "@voxtrail/workflow";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { required } from "./provider-roles";

/**
 * The builder of each cloud reasoner `PROVIDER_REGISTRY` declares. The provider and its SDK load
 * when it is built (a Lambda function's first invocation), not when this module is imported.
 */
const REASONER_BUILDERS: Record<CloudProviderName<"reasoner">, NamedBuilder<"reasoner">> = {
  bedrock: async (selection, clients) => {
    const modelId = required(selection.bedrockModelId, "bedrockModelId", "bedrock");
    const [{ BedrockRuntimeClient }, { BedrockReasoner }] = await Promise.all([
      import("@aws-sdk/client-bedrock-runtime"),
      import("../reasoning/bedrock"),
    ]);
    return BedrockReasoner.create({ client: clients.bedrock ?? new BedrockRuntimeClient({}), modelId });
  },
};

/**
 * The cloud reasoner a selection chose (`bedrock`), or `undefined` for the embedded one.
 *
 * @example
 * const reasoner = await cloudReasoner({ ...selection, reasoner: "bedrock", bedrockModelId }, {});
 */
export const cloudReasoner = namedRoleBuilder("reasoner", REASONER_BUILDERS);
