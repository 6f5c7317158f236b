import { type AudioFormat, InvalidInput } from "@voxtrail/core";
import {
  type ProviderSelection,
  providerDeclaration,
  REASONERS,
  SYNTHESIZERS,
  selectionFromEnvironment,
  TRANSCRIBERS,
} from "@voxtrail/workflow";
import { DEFAULT_REPLY_FORMAT } from "./local-dependencies";

/** Amazon Connect's prompt format: WAV, 8 kHz, mono, mu-law. */
export const TELEPHONY_REPLY_FORMAT: AudioFormat = { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 };

/** The reply formats `voxtrail run --reply-format` offers, by name. */
export const REPLY_FORMATS = { pcm16: DEFAULT_REPLY_FORMAT, telephony: TELEPHONY_REPLY_FORMAT } as const;

/** Provider choices given on the command line; an omitted one falls back to the environment. */
export interface ProviderChoices {
  transcriber?: string | undefined;
  reasoner?: string | undefined;
  synthesizer?: string | undefined;
  sonicEndpoint?: string | undefined;
  voiceId?: string | undefined;
}

/**
 * The provider selection of a local run: the environment's choices (`VOXTRAIL_SYNTHESIZER`,
 * `CARTESIA_API_KEY`, `VOXTRAIL_BEDROCK_MODEL_ID`, ...; see `PROVIDER_ENVIRONMENT`), overridden by
 * the ones given. An unknown provider name, `sonic-sagemaker` without an endpoint name, or a cloud
 * synthesizer without a voice id (there is no voice every account has) is `InvalidInput`; other
 * missing settings are reported by `buildProviders` when the runtime starts.
 *
 * @example
 * const providers = selectionFromChoices({ synthesizer: "sonic-sagemaker", sonicEndpoint: "sonic-3-6", voiceId });
 * const runtime = await LocalRuntime.start({ storeDir: ".voxtrail", providers });
 */
export function selectionFromChoices(
  choices: ProviderChoices,
  env: NodeJS.ProcessEnv = process.env,
): ProviderSelection {
  checkChoice("transcriber", TRANSCRIBERS, choices.transcriber);
  checkChoice("reasoner", REASONERS, choices.reasoner);
  checkChoice("synthesizer", SYNTHESIZERS, choices.synthesizer);
  const overrides: Record<string, string> = {
    VOXTRAIL_TRANSCRIBER: choices.transcriber ?? "",
    VOXTRAIL_REASONER: choices.reasoner ?? "",
    VOXTRAIL_SYNTHESIZER: choices.synthesizer ?? "",
    VOXTRAIL_SONIC_ENDPOINT: choices.sonicEndpoint ?? "",
    VOXTRAIL_VOICE_ID: choices.voiceId ?? "",
  };
  const merged = { ...env };
  for (const [name, value] of Object.entries(overrides)) if (value !== "") merged[name] = value;
  const selection = selectionFromEnvironment(merged);
  if (selection.synthesizer === "sonic-sagemaker" && selection.sonicEndpoint === undefined) {
    throw new InvalidInput("synthesizer sonic-sagemaker needs the endpoint's name (--sonic-endpoint NAME)");
  }
  const needsVoice = providerDeclaration("synthesizer", selection.synthesizer)?.needs?.includes("voiceId");
  if (needsVoice && selection.voiceId === undefined) {
    throw new InvalidInput(`synthesizer ${selection.synthesizer} needs a Sonic voice id (--voice-id ID)`);
  }
  return selection;
}

function checkChoice(setting: string, valid: readonly string[], value: string | undefined): void {
  if (value !== undefined && !valid.includes(value)) {
    throw new InvalidInput(
      `${setting} must be one of ${valid.join(", ")}; got ${JSON.stringify(value.slice(0, 40))}`,
    );
  }
}

/** The reply format named `name` (`pcm16` or `telephony`); anything else is `InvalidInput`. */
export function replyFormatNamed(name: string): AudioFormat {
  const format = Object.hasOwn(REPLY_FORMATS, name)
    ? (REPLY_FORMATS as Record<string, AudioFormat>)[name]
    : undefined;
  if (format === undefined) {
    throw new InvalidInput(
      `reply format must be one of ${Object.keys(REPLY_FORMATS).join(", ")}; got ${JSON.stringify(name.slice(0, 40))}`,
    );
  }
  return format;
}
