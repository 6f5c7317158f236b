/** The languages the stand-in's jobs take, and how it identifies one (see {@link jobLanguageOf}). */
export interface JobLanguageSettings {
  /**
   * The `LanguageCode`s (and `LanguageOptions`) it takes; English ones (`en-US`, `en-GB`, ...) when
   * unset. A test of the wiring adds `es-US`, with a transcriber that has its transcripts
   * ({@link SuppliedTranscripts}): no embedded recogniser here hears Spanish.
   */
  languageCodes?: readonly string[];
  /**
   * Identifies a job's language among its `LanguageOptions` (`IdentifyLanguage`). The stand-in has
   * no language identifier of its own: without this, `IdentifyLanguage` is refused.
   */
  identifyLanguage?: (wav: Uint8Array, options: readonly string[]) => string | Promise<string>;
}

/** What a start asked for: a language, or identification among options. */
export type JobLanguage = { code: string } | { identifyAmong: string[] };

const ENGLISH = /^en-[A-Z]{2}$/;

/**
 * The language a `StartTranscriptionJob` body asks for, checked as Transcribe checks it: exactly
 * one of `LanguageCode` and `IdentifyLanguage` (with at least two `LanguageOptions`, each a code
 * this stand-in takes); a string naming what is wrong (the message of a `BadRequestException`)
 * otherwise.
 */
export function jobLanguageOf(
  body: Record<string, unknown>,
  settings: JobLanguageSettings,
): JobLanguage | string {
  const takes = (code: unknown): code is string =>
    typeof code === "string" &&
    (settings.languageCodes ? settings.languageCodes.includes(code) : ENGLISH.test(code));
  const taken = settings.languageCodes ? settings.languageCodes.join(", ") : "en-US, en-GB, ...";
  const { LanguageCode: code, IdentifyLanguage: identify, LanguageOptions: options } = body;
  if (identify === true) {
    if (code !== undefined) return "include one of LanguageCode and IdentifyLanguage, not both";
    if (settings.identifyLanguage === undefined) {
      return "this stand-in cannot identify languages: give LanguageCode";
    }
    if (!Array.isArray(options) || options.length < 2 || !options.every(takes)) {
      return `LanguageOptions must list at least two of the language codes this stand-in takes (${taken})`;
    }
    return { identifyAmong: [...options] };
  }
  if (!takes(code)) return `this stand-in transcribes ${taken} only: LanguageCode must be one of them`;
  return { code };
}
