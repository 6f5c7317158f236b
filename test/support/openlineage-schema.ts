import { readFile } from "node:fs/promises";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** The OpenLineage RunEvent schema, copied into the repository (see fixtures/openlineage/README.md). */
const SCHEMA_FILE = new URL("../../fixtures/openlineage/OpenLineage.json", import.meta.url);

/** A validator for OpenLineage RunEvents, compiled from the repository's copy of the schema. */
export async function openLineageValidator(): Promise<ValidateFunction> {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(await readFile(SCHEMA_FILE, "utf8")));
}
