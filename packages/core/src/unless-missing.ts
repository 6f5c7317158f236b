import { ObjectNotFound } from "./errors";

/**
 * What `read` resolves to, or `undefined` when it rejects with `ObjectNotFound` (the object is not
 * there, or was deleted since it was listed); any other rejection is passed on.
 *
 * @example
 * const bytes = await unlessMissing(store.getBytes(key)); // undefined when there is no object
 */
export async function unlessMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ObjectNotFound) return undefined;
    throw error;
  }
}
