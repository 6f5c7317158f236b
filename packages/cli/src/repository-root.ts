import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: where `config/stages/` is, as the CLI runs from its sources. */
export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
