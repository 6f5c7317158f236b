import type { ProviderSelection } from "@voxtrail/workflow";
import type { ProviderClients, ProviderRole, Providers, RoleBuilder } from "./provider-roles";

/** The builders of the roles a runtime fills: the cloud providers it may build. */
export type RoleBuilders<R extends ProviderRole> = { [K in R]: RoleBuilder<K> };

/** The embedded engine of a role, built only when the selection chooses `local` for it. */
export type EmbeddedProviders<R extends ProviderRole> = {
  [K in R]?: () => Providers[K] | Promise<Providers[K]>;
};

/**
 * The one place a provider is chosen, for Lambda and for the local runtime alike: for each role
 * `builders` names, the cloud provider the selection asks for, or, where it chose `local`, the
 * embedded engine `embedded` offers (`undefined` when it offers none: the caller says why that
 * cannot run where it is). Each cloud provider declares its processor and boundary (regions from
 * the clients' configuration); AWS clients not given are built from the standard AWS configuration
 * (`AWS_REGION`, `AWS_ENDPOINT_URL_<SERVICE>`, profiles). An unknown choice or a missing setting
 * is `InvalidInput` naming it. A runtime passes only the builders of the roles it fills, so it
 * loads no SDK it never calls.
 *
 * @example
 * const { transcriber } = await buildProviders(selection, { transcriber: cloudTranscriber });
 * const all = await buildProviders(selection, CLOUD_BUILDERS, { clients, embedded: { reasoner: () => new LocalReasoner() } });
 */
export async function buildProviders<R extends ProviderRole>(
  selection: ProviderSelection,
  builders: RoleBuilders<R>,
  options: { clients?: ProviderClients; embedded?: EmbeddedProviders<ProviderRole> } = {},
): Promise<{ [K in R]: Providers[K] | undefined }> {
  const built: Partial<{ [K in R]: Providers[K] | undefined }> = {};
  for (const role of Object.keys(builders) as R[]) {
    const build = builders[role] as RoleBuilder<typeof role>;
    const embedded = options.embedded?.[role] as (() => Providers[R] | Promise<Providers[R]>) | undefined;
    built[role] = (await build(selection, options.clients ?? {})) ?? (await embedded?.());
  }
  return built as { [K in R]: Providers[K] | undefined };
}
