import type { CloudProviderName } from "@voxtrail/workflow";
import { CartesiaInkTranscriber } from "../transcription/cartesia-ink";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { optional, required } from "./provider-roles";

/** The builder of each in-function cloud transcriber `PROVIDER_REGISTRY` declares. */
const TRANSCRIBER_BUILDERS: Record<CloudProviderName<"transcriber">, NamedBuilder<"transcriber">> = {
  "cartesia-ink": async (selection) =>
    new CartesiaInkTranscriber({
      apiKey: required(selection.cartesiaApiKey, "cartesiaApiKey", "cartesia-ink"),
      ...optional("baseURL", selection.cartesiaBaseUrl),
      ...optional("model", selection.cartesiaSttModel),
    }),
};

/**
 * The cloud transcriber a selection chose (`cartesia-ink`), or `undefined` for the embedded one
 * and for a service-job transcriber (`cloudTranscriptionService` builds that).
 *
 * @example
 * const transcriber = await cloudTranscriber({ ...selection, transcriber: "cartesia-ink", cartesiaApiKey }, {});
 */
export const cloudTranscriber = namedRoleBuilder("transcriber", TRANSCRIBER_BUILDERS);
