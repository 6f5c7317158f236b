import * as z from "zod/mini";
import { VoxtrailError } from "./errors";

/**
 * A call's language as a deployment names it: a BCP 47 tag with its region (`en-US`, `es-US`),
 * the form Amazon Transcribe's `LanguageCode` and `LanguageOptions` take.
 */
export const CallLanguage = z
  .string()
  .check(z.regex(/^[a-z]{2}-[A-Z]{2}$/, "a language with its region, e.g. en-US"));
export type CallLanguage = z.infer<typeof CallLanguage>;

/** The languages a deployment takes when its stage config names none. */
export const DEFAULT_CALL_LANGUAGES: readonly string[] = ["en-US"];

/**
 * The primary subtag of a BCP 47 tag, lower case: what Sonic's `language` and the synthesizers'
 * declared languages use.
 *
 * @example
 * primaryLanguage("es-US"); // "es"
 */
export function primaryLanguage(tag: string): string {
  return tag.trim().split(/[-_]/)[0]?.toLowerCase() ?? "";
}

/** A language tag quoted for a message: at most 35 characters (a tag, never text). */
export function quoteLanguage(tag: string): string {
  return JSON.stringify(tag.slice(0, 35));
}

/**
 * The call's language is not one the deployment takes (its stage config's `languages`): the call
 * fails rather than being heard or answered in another language.
 */
export class CallLanguageUnsupported extends VoxtrailError {
  readonly retryable = false;

  static of(language: string, languages: readonly string[]): CallLanguageUnsupported {
    return new CallLanguageUnsupported(
      `the call's language ${quoteLanguage(language)} is not one this deployment takes ` +
        `(${languages.join(", ")}): add it to the stage config's languages, or send the call to a ` +
        `deployment that takes it`,
    );
  }
}

/**
 * The deployment takes several languages, nothing says which one the call is in (no language
 * metadata, no language key prefix) and its transcriber cannot identify it (only Amazon Transcribe
 * does, with `IdentifyLanguage`).
 */
export class CallLanguageUnknown extends VoxtrailError {
  readonly retryable = false;
}

/** The transcriber has no model for the call's language (the embedded one hears English only). */
export class TranscriberLanguageUnsupported extends VoxtrailError {
  readonly retryable = false;
}

/** The reasoner cannot answer in the call's language (the local reasoner: English and Spanish). */
export class ReasonerLanguageUnsupported extends VoxtrailError {
  readonly retryable = false;
}

/** The synthesizer does not speak the reply's language. */
export class SynthesizerLanguageUnsupported extends VoxtrailError {
  readonly retryable = false;
}

/**
 * The configured language a key names, when one of its folders is a language the deployment takes
 * (compared ignoring case): `incoming/es-US/call.wav` is Spanish where `es-US` is taken. A folder
 * that looks like a language tag but is not taken is `CallLanguageUnsupported`; a key with no such
 * folder says nothing (`undefined`).
 *
 * @example
 * languageFromKey("incoming/es-US/vm-1.wav", ["en-US", "es-US"]); // "es-US"
 * languageFromKey("incoming/vm-1.wav", ["en-US", "es-US"]); // undefined
 */
export function languageFromKey(key: string, languages: readonly string[]): string | undefined {
  const folders = key.split("/").slice(0, -1);
  for (const folder of folders) {
    if (!/^[a-z]{2}-[a-z]{2}$/i.test(folder)) continue;
    const taken = languages.find((language) => language.toLowerCase() === folder.toLowerCase());
    if (taken === undefined) throw CallLanguageUnsupported.of(folder, languages);
    return taken;
  }
  return undefined;
}

/**
 * The call's language from where it is known: the object's `language` metadata, else a language
 * folder in its key ({@link languageFromKey}), else the deployment's only language. `undefined`
 * when the deployment takes several and nothing says which: the transcriber must identify it.
 * A named language the deployment does not take is `CallLanguageUnsupported`.
 *
 * @example
 * callLanguage({ key: "incoming/vm.wav", languages: ["en-US"] }); // "en-US"
 * callLanguage({ key: "incoming/vm.wav", metadata: "es-us", languages: ["en-US", "es-US"] }); // "es-US"
 */
export function callLanguage(source: {
  key: string;
  metadata?: string | undefined;
  languages: readonly string[];
}): string | undefined {
  const { key, metadata, languages } = source;
  if (metadata !== undefined && metadata.trim() !== "") {
    const taken = languages.find((language) => language.toLowerCase() === metadata.trim().toLowerCase());
    if (taken === undefined) throw CallLanguageUnsupported.of(metadata.trim(), languages);
    return taken;
  }
  return languageFromKey(key, languages) ?? (languages.length === 1 ? languages[0] : undefined);
}
