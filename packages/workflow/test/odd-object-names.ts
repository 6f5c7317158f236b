/**
 * Object names a hostile or careless user uploads: spaces, `+`, `%`, parentheses, non-ASCII,
 * URL-reserved characters, names that look escaped already. Every test of how an S3 event spells a
 * key uses these.
 */
export const ODD_OBJECT_NAMES = [
  "a b+c%(1).wav",
  "red flower.wav",
  "c++ 100%.wav",
  "%2B already escaped %20.wav",
  "Ümlaut café 日本語 🎙.wav",
  "(copy) (2) !'*~.wav",
  "semi;colon=equals&amp@at,comma?$#.wav",
  "  two  spaces  .wav",
] as const;
