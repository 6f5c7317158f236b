import { PROVIDER_REGISTRY, SYNTHESIZERS } from "./provider-registry";

/**
 * The languages each synthesizer choice speaks (ISO 639-1 codes; each declares them in
 * `PROVIDER_REGISTRY`), so a prompt's language can be checked before anything is synthesized,
 * without building the synthesizer.
 *
 * @example
 * SYNTHESIZER_LANGUAGES.local; // ["en", "es"]
 */
export const SYNTHESIZER_LANGUAGES = Object.fromEntries(
  SYNTHESIZERS.map((name) => [name, PROVIDER_REGISTRY.synthesizer[name].languages]),
) as { [N in (typeof SYNTHESIZERS)[number]]: (typeof PROVIDER_REGISTRY.synthesizer)[N]["languages"] };

/**
 * Whether `languages` include `language`, a BCP 47 tag compared by its primary subtag, ignoring
 * case: `en-US` is English.
 *
 * @example
 * speaksLanguage(SYNTHESIZER_LANGUAGES.local, "en-GB"); // true
 * speaksLanguage(SYNTHESIZER_LANGUAGES.local, "ja"); // false
 */
export function speaksLanguage(languages: readonly string[], language: string): boolean {
  const primary = language.trim().split(/[-_]/)[0]?.toLowerCase() ?? "";
  return languages.includes(primary);
}
