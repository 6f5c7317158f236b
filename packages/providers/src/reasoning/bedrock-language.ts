import type { SystemContentBlock } from "@aws-sdk/client-bedrock-runtime";
import { type Entities, type FactReview, primaryLanguage, type Transcript } from "@voxtrail/core";
import { unsureReplyEs } from "./reply-templates-es";
import { unsureReply } from "./reply-unsure";
import { readSpanish, readSpanishText } from "./spanish-reading";
import { SYSTEM_BLOCKS } from "./transcript-prompt";

/** Language names the Bedrock prompt uses, by ISO 639-1 code. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = {
  es: "Spanish",
  fr: "French",
  de: "German",
  it: "Italian",
  pt: "Portuguese",
  ja: "Japanese",
};

/**
 * Converse's `system` blocks for a transcript in `language`: for English the prompt as it always
 * was; for another language one more block, after the task, saying the caller's language and that
 * `replyText` is written in it (the summary stays in English, for the team). It names the language
 * only, from the job's tag: nothing from the transcript goes into the instructions.
 *
 * @example
 * systemBlocksFor("es-US").at(-1); // { text: "The caller spoke Spanish (es-US). Write replyText in Spanish; ..." }
 */
export function systemBlocksFor(language: string): SystemContentBlock[] {
  const primary = primaryLanguage(language);
  if (primary === "en" || primary === "") return SYSTEM_BLOCKS;
  const name = LANGUAGE_NAMES[primary] ?? `the language ${primary}`;
  const tag = /^[a-z]{2}(-[A-Z]{2})?$/.test(language) ? language : primary;
  return [
    ...SYSTEM_BLOCKS,
    {
      text:
        `The caller spoke ${name} (${tag}). Write replyText in ${name}, as the business speaking to ` +
        "the caller; write the summary in English, for the team.",
    },
  ];
}

/** The transcript the fact checks read: Spanish through its English reading (number words, days). */
export function checkedReading(transcript: Transcript): Transcript {
  return primaryLanguage(transcript.language) === "es" ? readSpanish(transcript) : transcript;
}

/**
 * The model's facts as the checks look for them in {@link checkedReading}: in a Spanish call, a day
 * the model wrote in Spanish ("jueves", "el jueves") read as that reading reads the caller's words
 * ("thursday"), so it is found where the caller said it. Numbers are looked for by their digits, whatever words
 * said them. The record keeps the facts as the model wrote them.
 *
 * @example
 * checkedEntities("es-US", { day: "jueves" }); // { day: "thursday" }
 */
export function checkedEntities(language: string, entities: Entities): Entities {
  if (primaryLanguage(language) !== "es" || entities.day === undefined) return entities;
  // An article the model put before the day ("el jueves") is not among the caller's words ("al jueves").
  return { ...entities, day: readSpanishText(entities.day.replace(/^\s*(el|la|los|las)\s+/i, "")) };
}

/** The reply when facts are held, in the transcript's language (Spanish, else English). */
export function unsureReplyIn(language: string, held: readonly Pick<FactReview, "fact">[], business: string) {
  return primaryLanguage(language) === "es" ? unsureReplyEs(held, business) : unsureReply(held, business);
}
