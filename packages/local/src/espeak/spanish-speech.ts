import { EspeakEngine } from "./espeak-engine";

/**
 * The espeak-ng voice Spanish is spoken in: Latin American Spanish (`es-419`), the variety closest
 * to `es-US` among Debian's espeak-ng voices (`es` is Spain's).
 */
export const SPANISH_ESPEAK_VOICE = "es-419";

/** What the local Sonic endpoint and the prompts' synthesizer speak each language with. */
export const LOCAL_SPEECH_ENGINES = {
  en: "flite (cmu_us_slt)",
  es: `espeak-ng (${SPANISH_ESPEAK_VOICE})`,
} as const;

/** The languages the local endpoint speaks (ISO 639-1): English with flite, Spanish with espeak-ng. */
export const LOCAL_SPEECH_LANGUAGES = Object.keys(
  LOCAL_SPEECH_ENGINES,
) as (keyof typeof LOCAL_SPEECH_ENGINES)[];

/**
 * A speech engine that speaks Spanish: Debian's espeak-ng in its Latin American voice, whatever
 * voice the caller names (flite's voices are English). It gives espeak-ng's 22,050 Hz WAV; the
 * endpoint resamples each sentence to the rate asked for.
 *
 * @example
 * const wav = await spanishSpeech().synthesizeWav("Gracias por llamar.");
 */
export function spanishSpeech(espeak: EspeakEngine = new EspeakEngine()): {
  synthesizeWav(text: string): Promise<Uint8Array>;
} {
  return { synthesizeWav: (text: string) => espeak.synthesizeWav(text, { voice: SPANISH_ESPEAK_VOICE }) };
}
