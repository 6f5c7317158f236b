/**
 * Splits a transcript into lower-case word tokens. Punctuation is a word break, apostrophes inside
 * words stay ("don't"), digits stay as numerals, "a.m."/"p.m." become "am"/"pm", "3pm" becomes
 * "3 pm", and clock times keep their colon ("3:30").
 *
 * @example
 * tokenize("Friday... actually, sorry: Thursday at 3:30pm?"); // ["friday", "actually", "sorry", "thursday", "at", "3:30", "pm"]
 */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/\b([ap])\.\s?m\b\.?/g, "$1m")
    .replace(/(\d)([ap]m)\b/g, "$1 $2")
    .split(/[^a-z0-9':]+/)
    .map((token) => token.replace(/^[':]+|[':]+$/g, ""))
    .filter((token) => token.length > 0);
}
