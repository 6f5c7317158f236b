import type { AudioEncoding } from "@voxtrail/core";
import { LOCAL_SPEECH_LANGUAGES } from "../espeak/spanish-speech";

/** Encodings Sonic's raw output format accepts. */
const ENCODINGS: readonly AudioEncoding[] = ["pcm_s16le", "pcm_f32le", "pcm_mulaw", "pcm_alaw"];

/** Sample rates Cartesia documents for the raw output format. */
const SAMPLE_RATES: readonly number[] = [8000, 16000, 22050, 24000, 44100, 48000];

/** A Sonic request body that passed validation, in this module's names. */
export interface SonicRequest {
  contextId: string;
  transcript: string;
  encoding: AudioEncoding;
  sampleRate: number;
  voiceId: string;
  addTimestamps: boolean;
  /** The language asked for, its primary subtag (`en`, `es`); absent when the body names none (English). */
  language?: string;
}

/** The outcome of validating a request body: the request, or what is wrong with it. */
export type SonicRequestCheck = { ok: true; request: SonicRequest } | { ok: false; problems: string[] };

/**
 * Validates the body Sonic on SageMaker takes (cartesia-aws, Sonic 3.6 JumpStart README):
 * `context_id`, `transcript`, `voice: {mode: "id", id}` and `output_format: {container: "raw",
 * encoding, sample_rate}` are required; `language` and `add_timestamps` are optional; other fields
 * are ignored. Problems name fields and allowed values, never the values sent.
 */
export function checkSonicRequest(body: Uint8Array): SonicRequestCheck {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    return { ok: false, problems: ["body: must be a UTF-8 JSON document"] };
  }
  if (!isObject(value)) return { ok: false, problems: ["body: must be a JSON object"] };

  const problems: string[] = [];
  const text = (field: string, raw: unknown): string => {
    if (typeof raw === "string" && raw.trim() !== "") return raw;
    problems.push(`${field}: must be a non-empty string`);
    return "";
  };
  const contextId = text("context_id", value.context_id);
  const transcript = text("transcript", value.transcript);
  // Optional in Sonic: English (flite) or Spanish (espeak-ng); any other is refused, never spoken in English.
  // Compared by primary subtag: `es-US` is Spanish.
  const language =
    value.language === undefined
      ? undefined
      : text("language", value.language).toLowerCase().split(/[-_]/)[0];
  if (language && !(LOCAL_SPEECH_LANGUAGES as readonly string[]).includes(language)) {
    problems.push(`language: this stand-in speaks ${LOCAL_SPEECH_LANGUAGES.join(" and ")}`);
  }

  let encoding: AudioEncoding | undefined;
  let sampleRate: number | undefined;
  const format = value.output_format;
  if (!isObject(format)) {
    problems.push("output_format: must be an object");
  } else {
    if (format.container !== "raw") problems.push('output_format.container: must be "raw"');
    encoding = ENCODINGS.find((candidate) => candidate === format.encoding);
    if (encoding === undefined) {
      problems.push(`output_format.encoding: must be one of ${ENCODINGS.join(", ")}`);
    }
    sampleRate = SAMPLE_RATES.find((candidate) => candidate === format.sample_rate);
    if (sampleRate === undefined) {
      problems.push(`output_format.sample_rate: must be one of ${SAMPLE_RATES.join(", ")}`);
    }
  }

  let voiceId = "";
  const voice = value.voice;
  if (!isObject(voice)) {
    problems.push("voice: must be an object");
  } else {
    if (voice.mode !== "id") problems.push('voice.mode: must be "id"');
    voiceId = text("voice.id", voice.id);
  }

  if (value.add_timestamps !== undefined && typeof value.add_timestamps !== "boolean") {
    problems.push("add_timestamps: must be a boolean");
  }

  if (problems.length > 0 || encoding === undefined || sampleRate === undefined) {
    return { ok: false, problems };
  }
  return {
    ok: true,
    request: {
      contextId,
      transcript,
      encoding,
      sampleRate,
      voiceId,
      addTimestamps: value.add_timestamps === true,
      ...(language ? { language } : {}),
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
