import type { CloudProviderName } from "@voxtrail/workflow";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { optional, required } from "./provider-roles";

/**
 * The builder of each in-function cloud transcriber `PROVIDER_REGISTRY` declares. The provider and
 * its SDK load when it is built (a Lambda function's first invocation), not when this module is imported.
 */
const TRANSCRIBER_BUILDERS: Record<CloudProviderName<"transcriber">, NamedBuilder<"transcriber">> = {
  "cartesia-ink": async (selection) => {
    const apiKey = required(selection.cartesiaApiKey, "cartesiaApiKey", "cartesia-ink");
    const { CartesiaInkTranscriber } = await import("../transcription/cartesia-ink");
    return new CartesiaInkTranscriber({
      apiKey,
      ...optional("baseURL", selection.cartesiaBaseUrl),
      ...optional("model", selection.cartesiaSttModel),
    });
  },
};

/**
 * The cloud transcriber a selection chose (`cartesia-ink`), or `undefined` for the embedded one
 * and for a service-job transcriber (`cloudTranscriptionService` builds that).
 *
 * @example
 * const transcriber = await cloudTranscriber({ ...selection, transcriber: "cartesia-ink", cartesiaApiKey }, {});
 */
export const cloudTranscriber = namedRoleBuilder("transcriber", TRANSCRIBER_BUILDERS);
