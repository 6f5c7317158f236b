/** A UTF-16 surrogate: the one place UTF-16 code-unit order and UTF-8 byte order disagree. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Sorts keys in the byte order of their UTF-8 encoding, the order S3 lists keys in. Without
 * surrogate pairs (characters beyond U+FFFF), UTF-16 code-unit order is that order already and
 * the plain string sort is used; otherwise each key is encoded once and compared as bytes.
 */
export function sortByUtf8(keys: string[]): string[] {
  if (!keys.some((key) => SURROGATE.test(key))) return keys.sort();
  return keys
    .map((key) => ({ key, bytes: Buffer.from(key) }))
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
    .map(({ key }) => key);
}
