import * as z from "zod/mini";
import { $ZodError } from "zod/v4/core";
import type { ObjectStore } from "./object-store";

/**
 * The JSON document under `key`, checked against `schema`. A missing object rejects with
 * `ObjectNotFound` (the store's), a body that is not JSON with `SyntaxError`, one of another
 * shape with zod's error: callers that tolerate any of these catch that one by name.
 *
 * @example
 * const report = await readJson(store, keys.report(jobId), JobReport);
 */
export async function readJson<S extends z.core.$ZodType>(
  store: Pick<ObjectStore, "getBytes">,
  key: string,
  schema: S,
): Promise<z.infer<S>> {
  return z.parse(schema, JSON.parse((await store.getBytes(key)).toString("utf8")));
}

/**
 * Whether `error` is the one {@link readJson} throws for a document of another shape.
 *
 * @example
 * const summary = await readJson(store, key, LineageSummary).catch((error) => (isSchemaMismatch(error) ? undefined : Promise.reject(error)));
 */
export function isSchemaMismatch(error: unknown): error is $ZodError {
  return error instanceof $ZodError;
}
