import type { Synthesizer } from "@voxtrail/core";
import { choice, PROVIDER_ENVIRONMENT, SYNTHESIZER_LANGUAGES, SYNTHESIZERS } from "@voxtrail/workflow";
import type { SpokenLanguages } from "./prompt-rows";

/**
 * What the configured synthesizer speaks, for PreparePrompts to check rows against without
 * building a synthesizer: the languages `synthesizer` declares when the runtime passed one that
 * declares them (the local runtime gives every stage its synthesizer), otherwise
 * `SYNTHESIZER_LANGUAGES` of the choice in `env` (`VOXTRAIL_SYNTHESIZER`, `local` when unset: the
 * stack gives every function the stage's selection). An unknown choice is `InvalidInput`.
 *
 * @example
 * spokenLanguages({ language: "en" }, { VOXTRAIL_SYNTHESIZER: "local" });
 * // { synthesizer: "local", languages: ["en", "es"], defaultLanguage: "en" }
 */
export function spokenLanguages(
  deps: { synthesizer?: Pick<Synthesizer, "processor" | "languages">; language: string },
  env: NodeJS.ProcessEnv = process.env,
): SpokenLanguages {
  const declared = deps.synthesizer?.languages;
  if (deps.synthesizer && declared) {
    return {
      synthesizer: deps.synthesizer.processor.provider,
      languages: declared,
      defaultLanguage: deps.language,
    };
  }
  const variable = PROVIDER_ENVIRONMENT.synthesizer;
  const chosen = choice(SYNTHESIZERS, env[variable]?.trim() || undefined, variable);
  return { synthesizer: chosen, languages: SYNTHESIZER_LANGUAGES[chosen], defaultLanguage: deps.language };
}
