import { choice, TRANSCRIBERS } from "@voxtrail/workflow";
import { CartesiaInkTranscriber } from "../transcription/cartesia-ink";
import { optional, type RoleBuilder, required } from "./provider-roles";

/**
 * The cloud transcriber a selection chose (`cartesia-ink`), or `undefined` for the embedded one.
 *
 * @example
 * const transcriber = await cloudTranscriber({ ...selection, transcriber: "cartesia-ink", cartesiaApiKey }, {});
 */
export const cloudTranscriber: RoleBuilder<"transcriber"> = async (selection) => {
  const transcriber = choice(TRANSCRIBERS, selection.transcriber, "transcriber");
  if (transcriber !== "cartesia-ink") return undefined;
  return new CartesiaInkTranscriber({
    apiKey: required(selection.cartesiaApiKey, "cartesiaApiKey", transcriber),
    ...optional("baseURL", selection.cartesiaBaseUrl),
    ...optional("model", selection.cartesiaSttModel),
  });
};
