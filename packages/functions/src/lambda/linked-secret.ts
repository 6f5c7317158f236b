import { InvalidInput } from "@voxtrail/core";

/**
 * The value of an `sst.Secret` linked to this function, read when first asked for. SST puts linked
 * values, encrypted, in the function's bundle (`resource.enc`, key in `SST_KEY`); the `sst` SDK's
 * `sst/resource` (its `Resource` alone, without the SDK's realtime and vector clients) decrypts
 * them in memory when it is first imported, so the plaintext is never an environment
 * variable (visible to anyone who may read the function's configuration) and is not decrypted by
 * functions, or invocations, that never call Cartesia. A function the secret is not linked to
 * gets an `InvalidInput` naming the secret, never a value.
 *
 * @example
 * const apiKey = linkedSecret(CARTESIA_SECRET); // a SecretSource: () => Promise<string>
 */
export function linkedSecret(name: string): () => Promise<string> {
  return async () => {
    const { Resource } = await import("sst/resource");
    let value: unknown;
    try {
      // sst's Resource throws for a name that is not linked.
      value = (Resource as unknown as Record<string, { value?: unknown } | undefined>)[name]?.value;
    } catch {
      value = undefined;
    }
    if (typeof value !== "string" || value === "") {
      throw new InvalidInput(`the secret ${name} is not linked to this function`);
    }
    return value;
  };
}
