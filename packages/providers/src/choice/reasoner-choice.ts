import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { choice, REASONERS } from "@voxtrail/workflow";
import { BedrockReasoner } from "../reasoning/bedrock";
import { type RoleBuilder, required } from "./provider-roles";

/**
 * The cloud reasoner a selection chose (`bedrock`), or `undefined` for the embedded one.
 *
 * @example
 * const reasoner = await cloudReasoner({ ...selection, reasoner: "bedrock", bedrockModelId }, {});
 */
export const cloudReasoner: RoleBuilder<"reasoner"> = async (selection, clients) => {
  const reasoner = choice(REASONERS, selection.reasoner, "reasoner");
  if (reasoner !== "bedrock") return undefined;
  return BedrockReasoner.create({
    client: clients.bedrock ?? new BedrockRuntimeClient({}),
    modelId: required(selection.bedrockModelId, "bedrockModelId", reasoner),
  });
};
