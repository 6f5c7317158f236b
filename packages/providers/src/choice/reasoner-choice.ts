import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import type { CloudProviderName } from "@voxtrail/workflow";
import { BedrockReasoner } from "../reasoning/bedrock";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { required } from "./provider-roles";

/** The builder of each cloud reasoner `PROVIDER_REGISTRY` declares. */
const REASONER_BUILDERS: Record<CloudProviderName<"reasoner">, NamedBuilder<"reasoner">> = {
  bedrock: async (selection, clients) =>
    BedrockReasoner.create({
      client: clients.bedrock ?? new BedrockRuntimeClient({}),
      modelId: required(selection.bedrockModelId, "bedrockModelId", "bedrock"),
    }),
};

/**
 * The cloud reasoner a selection chose (`bedrock`), or `undefined` for the embedded one.
 *
 * @example
 * const reasoner = await cloudReasoner({ ...selection, reasoner: "bedrock", bedrockModelId }, {});
 */
export const cloudReasoner = namedRoleBuilder("reasoner", REASONER_BUILDERS);
