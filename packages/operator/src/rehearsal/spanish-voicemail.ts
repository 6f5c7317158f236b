import { decodeMono16, encodeMuLaw, resample, writeWav } from "@voxtrail/audio";
import type { Transcriber } from "@voxtrail/core";
import { type JobLanguageSettings, SuppliedTranscripts, spanishSpeech } from "@voxtrail/local";
import { PocketsphinxTranscriber } from "@voxtrail/providers";
import { FUNCTION_ENVIRONMENT } from "@voxtrail/workflow";
import type { StagePlan } from "./stage-plan";

/** The language of the rehearsal's Spanish voicemail, and the folder it is uploaded under. */
export const SPANISH_CALL_LANGUAGE = "es-US";

/**
 * What the Spanish voicemail's caller says (a damaged order whose record is in the bundled
 * records): espeak-ng speaks it for the upload, and the Transcribe stand-in answers its job with
 * it, since no recogniser here hears Spanish.
 */
export const SPANISH_CALLER_SAYS =
  "Hola, soy María López. Llamo por el pedido número cuatro dos siete uno. Llegó dañado. " +
  "Por favor, devuélvanme la llamada.";

/** The languages the stage's calls may be in (`languages` in its stage file); empty when it names none. */
export function stageLanguages(plan: StagePlan): string[] {
  const listed = plan.functions
    .map((fn) => fn.environment[FUNCTION_ENVIRONMENT.languages])
    .find((value) => value !== undefined);
  return listed ? listed.split(",") : [];
}

/**
 * Whether the rehearsal runs the Spanish voicemail on this stage: it transcribes with Amazon
 * Transcribe (whose stand-in can be given the Spanish transcript) and takes `es-US` calls.
 */
export function rehearsesSpanish(plan: StagePlan, transcribesWithAmazonTranscribe: boolean): boolean {
  return transcribesWithAmazonTranscribe && stageLanguages(plan).includes(SPANISH_CALL_LANGUAGE);
}

/**
 * The Transcribe stand-in's settings for a stage taking Spanish calls: it takes the stage's
 * language codes, and its recogniser answers an `es-US` job with {@link SPANISH_CALLER_SAYS},
 * labelled in lineage as a transcript supplied by the test (`SuppliedTranscripts`: no recogniser
 * heard the audio), any other with `recogniser` (pocketsphinx by default).
 */
export function spanishTranscribeSettings(
  plan: StagePlan,
  recogniser: Transcriber = new PocketsphinxTranscriber(),
): { transcriber: Transcriber; languages: JobLanguageSettings } {
  return {
    transcriber: new SuppliedTranscripts({ [SPANISH_CALL_LANGUAGE]: SPANISH_CALLER_SAYS }, recogniser),
    languages: { languageCodes: stageLanguages(plan) },
  };
}

/** The Spanish voicemail as a caller's phone records it: espeak-ng's speech as 8 kHz mu-law WAV. */
export async function spanishVoicemailWav(): Promise<Uint8Array> {
  const speech = decodeMono16(await spanishSpeech().synthesizeWav(SPANISH_CALLER_SAYS));
  const samples = resample(speech.samples, speech.sampleRate, 8000);
  return writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples));
}
