import {
  PROVIDER_REGISTRY,
  type ProviderDeclaration,
  type RegistryRole,
} from "@voxtrail/workflow/provider-registry";

/** The column a flag's description starts at in the usage text. */
const DESCRIPTION_COLUMN = 27;
/** The usage text's widest line. */
const LINE_WIDTH = 97;

/**
 * A role's choices for `voxtrail run --help`, from `PROVIDER_REGISTRY`: `local (…), a (…) or b (…)`,
 * each with its declared help, wrapped at the usage text's width and indented to its description
 * column. The first line follows the flag (`--transcriber NAME `).
 *
 * @example
 * `        --reasoner NAME    ${choicesHelp("reasoner")}`;
 */
export function choicesHelp(role: RegistryRole): string {
  const declared: Record<string, ProviderDeclaration> = PROVIDER_REGISTRY[role];
  const choices = Object.entries(declared).map(([name, declaration]) => `${name} (${declaration.help})`);
  const text =
    choices.length > 1 ? `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}` : choices.join("");
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && DESCRIPTION_COLUMN + line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line === "" ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(DESCRIPTION_COLUMN)}`);
}
