import { choice, providerNames, type RegistryRole } from "@voxtrail/workflow";
import type { ProviderClients, ProviderRole, Providers, RoleBuilder } from "./provider-roles";

/** Builds one named provider of a role from the selection. */
export type NamedBuilder<R extends ProviderRole> = (
  selection: Parameters<RoleBuilder<R>>[0],
  clients: ProviderClients,
) => Promise<Providers[R]>;

/**
 * A role's builder from one builder per provider name: the selection's choice for `setting`
 * (checked against `PROVIDER_REGISTRY`'s names, `local` when unset) picks it, and a name without
 * a builder (an embedded engine's) builds nothing. `builders` is typed by the registry's names at
 * each call site, so a cloud provider declared without a builder is a type error.
 *
 * @example
 * export const cloudReasoner = namedRoleBuilder<"reasoner">("reasoner", { bedrock: buildBedrock });
 */
export function namedRoleBuilder<R extends ProviderRole>(
  setting: RegistryRole,
  builders: Record<string, NamedBuilder<R>>,
): RoleBuilder<R> {
  return async (selection, clients) => {
    const name = choice(providerNames(setting), selection[setting], setting);
    return Object.hasOwn(builders, name)
      ? (builders[name] as NamedBuilder<R>)(selection, clients)
      : undefined;
  };
}
