import {
  CallLanguage,
  CallLanguageUnknown,
  CallLanguageUnsupported,
  InvalidInput,
  primaryLanguage,
  quoteLanguage,
  type Synthesizer,
  SynthesizerLanguageUnsupported,
} from "@voxtrail/core";
import { FUNCTION_ENVIRONMENT } from "@voxtrail/workflow";
import type { StageDependencies } from "./dependencies";

/** The environment variable naming the languages a deployment takes, comma-separated (`en-US,es-US`). */
export const LANGUAGES_VARIABLE = FUNCTION_ENVIRONMENT.languages;

/**
 * The languages `VOXTRAIL_LANGUAGES` names, when set: `{ languages }` to spread into the stage
 * dependencies, `{}` when unset (the stage then hears and answers in `language`, as before).
 * `InvalidInput` for a value that is not a list of tags with their regions.
 *
 * @example
 * languagesFromEnvironment({ VOXTRAIL_LANGUAGES: "en-US,es-US" }); // { languages: ["en-US", "es-US"] }
 */
export function languagesFromEnvironment(env: NodeJS.ProcessEnv): { languages?: readonly string[] } {
  const value = env[LANGUAGES_VARIABLE]?.trim();
  if (!value) return {};
  const languages = value.split(",").map((tag) => tag.trim());
  for (const tag of languages) {
    if (!CallLanguage.safeParse(tag).success) {
      throw new InvalidInput(
        `${LANGUAGES_VARIABLE} holds ${quoteLanguage(tag)}: give languages with their regions, comma-separated (e.g. en-US,es-US)`,
      );
    }
  }
  return { languages: [...new Set(languages)] };
}

/**
 * The language a call is transcribed in: the job's (Ingest found it), else the stage's `language`
 * for a stage that names no list of languages. A stage taking several languages, with nothing
 * saying which this call is in, needs a transcriber that identifies it: `CallLanguageUnknown`.
 */
export function transcriptionLanguage(
  job: { language?: string | undefined },
  deps: Pick<StageDependencies, "language" | "languages">,
): string {
  if (job.language !== undefined) return job.language;
  if (deps.languages === undefined) return deps.language;
  throw new CallLanguageUnknown(
    `this deployment takes ${deps.languages.join(", ")} and nothing says which language the call is in: ` +
      `upload it under a language folder (e.g. incoming/${deps.languages[0]}/) or with the object metadata ` +
      `language, or transcribe with Amazon Transcribe, which identifies the language`,
  );
}

/**
 * The language a reply is spoken in, as synthesizers take it (ISO 639-1: `es`): the transcript's
 * (the transcription's result), else the job's, else the stage's. `SynthesizerLanguageUnsupported`
 * when the synthesizer declares its languages and this is not one of them: a reply is never
 * spoken in another language.
 */
export function replyLanguage(
  job: { language?: string | undefined; transcribe?: { language?: string | undefined } },
  deps: Pick<StageDependencies, "language"> & { synthesizer: Pick<Synthesizer, "languages" | "processor"> },
): string {
  const language = primaryLanguage(job.transcribe?.language ?? job.language ?? deps.language);
  const spoken = deps.synthesizer.languages;
  if (spoken !== undefined && !spoken.includes(language)) {
    throw new SynthesizerLanguageUnsupported(
      `the reply's language ${quoteLanguage(language)} is not one ${deps.synthesizer.processor.provider} ` +
        `speaks (${spoken.join(", ")}): choose a synthesizer that speaks it, or remove the language from the stage`,
    );
  }
  return language;
}

/**
 * The least audio Amazon Transcribe's language identification is given: its documented minimum
 * speech for batch identification, 30 seconds
 * (https://docs.aws.amazon.com/transcribe/latest/dg/lang-id-batch.html). A shorter call is not
 * sent for identification (docs/languages.md).
 */
export const IDENTIFY_MIN_AUDIO_MS = 30_000;

/**
 * What a transcription job is started with: the call's language when known
 * ({@link transcriptionLanguage}); for a stage taking several, with nothing saying which, the
 * stage's languages to identify it among (`languageOptions`). A call shorter than
 * {@link IDENTIFY_MIN_AUDIO_MS} is `CallLanguageUnknown` rather than identified on too little
 * speech: it names how to give its language.
 */
export function transcriptionJobLanguage(
  job: { language?: string | undefined; audioMs: number },
  deps: Pick<StageDependencies, "language" | "languages">,
): { language: string; languageOptions?: readonly string[] } {
  const { languages } = deps;
  if (job.language !== undefined || languages === undefined)
    return { language: transcriptionLanguage(job, deps) };
  if (job.audioMs < IDENTIFY_MIN_AUDIO_MS) {
    throw new CallLanguageUnknown(
      `the call lasts ${Math.round(job.audioMs / 1000)} s, shorter than the ${IDENTIFY_MIN_AUDIO_MS / 1000} s of ` +
        `speech Amazon Transcribe's language identification needs, and nothing says which of ` +
        `${languages.join(", ")} it is in: upload it under a language folder (e.g. incoming/${languages[0]}/) ` +
        "or with the object metadata language",
    );
  }
  return { language: languages[0] as string, languageOptions: languages };
}

/**
 * The language of a transcription job's transcript: the call's, else (identified) the one the
 * service reports, which must be one the stage takes (`CallLanguageUnsupported` otherwise).
 */
export function transcribedLanguage(
  job: { language?: string | undefined },
  deps: Pick<StageDependencies, "language" | "languages">,
  described: { languageCode?: string | undefined },
): string {
  if (job.language !== undefined || deps.languages === undefined) return transcriptionLanguage(job, deps);
  const identified = described.languageCode;
  const taken = deps.languages.find((language) => language === identified);
  if (taken === undefined) throw CallLanguageUnsupported.of(identified ?? "none", deps.languages);
  return taken;
}

/**
 * The call's language for its job report: the transcription's (identified or not), else the one
 * Ingest found; `{}` for a stage that names no languages.
 */
export function reportLanguage(job: {
  language?: string | undefined;
  transcribe?: { language?: string | undefined } | undefined;
}): { language?: string } {
  const language = job.transcribe?.language ?? job.language;
  return language === undefined ? {} : { language };
}
