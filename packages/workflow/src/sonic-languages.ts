/**
 * The languages Cartesia documents for the Sonic 3 model family (`sonic-3`, this project's default
 * Cartesia model, and its snapshots), as ISO 639-1 codes. Source: Cartesia's model docs,
 * https://docs.cartesia.ai/build-with-cartesia/tts-models/older-models ("Sonic 3 supports the
 * following languages"), and the `language` values of https://docs.cartesia.ai/api-reference/tts/bytes.
 * Older models (`sonic-2`, `sonic-turbo`) speak only the first 15 (en to tr); a Sonic model on a
 * SageMaker endpoint speaks what its version does. Check this list against the model actually
 * deployed when pinning one, and when Cartesia's docs change.
 */
export const SONIC_LANGUAGES = [
  "en",
  "fr",
  "de",
  "es",
  "pt",
  "zh",
  "ja",
  "hi",
  "it",
  "ko",
  "nl",
  "pl",
  "ru",
  "sv",
  "tr",
  "tl",
  "bg",
  "ro",
  "ar",
  "cs",
  "el",
  "fi",
  "hr",
  "ms",
  "sk",
  "da",
  "ta",
  "uk",
  "hu",
  "no",
  "vi",
  "bn",
  "th",
  "he",
  "ka",
  "id",
  "te",
  "gu",
  "kn",
  "ml",
  "mr",
  "pa",
] as const;
