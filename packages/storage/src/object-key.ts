import { InvalidKey } from "@voxtrail/core";

/** The longest key S3 accepts, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/**
 * Throws `InvalidKey` unless `key` is acceptable to every store: non-empty, well-formed Unicode,
 * at most 1024 UTF-8 bytes, relative, `/`-separated, without control characters, backslashes,
 * empty segments (`a//b`, `a/`) or `.`/`..` segments. Messages name the rule, never the key.
 *
 * @example
 * assertValidKey("incoming/2024/call 1.wav"); // fine
 * assertValidKey("../etc/passwd"); // throws InvalidKey
 */
export function assertValidKey(key: string): void {
  if (key.length === 0) {
    throw new InvalidKey("object key must not be empty");
  }
  if (/[\uD800-\uDFFF]/u.test(key)) {
    throw new InvalidKey("object key must be well-formed Unicode (it has an unpaired surrogate)");
  }
  if (/\p{Cc}/u.test(key)) {
    throw new InvalidKey("object key must not contain NUL or other control characters");
  }
  if (Buffer.byteLength(key, "utf8") > MAX_KEY_BYTES) {
    throw new InvalidKey(`object key must be at most ${MAX_KEY_BYTES} bytes of UTF-8`);
  }
  if (key.startsWith("/")) {
    throw new InvalidKey("object key must not start with '/'");
  }
  if (key.includes("\\")) {
    throw new InvalidKey("object key must not contain a backslash");
  }
  for (const segment of key.split("/")) {
    if (segment === "") {
      throw new InvalidKey("object key must not have empty segments ('a//b' or a trailing '/')");
    }
    if (segment === "." || segment === "..") {
      throw new InvalidKey("object key must not have '.' or '..' segments");
    }
  }
}
