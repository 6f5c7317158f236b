import type { Reasoner } from "@voxtrail/core";

/**
 * The rule-based reasoner (`LocalReasoner`), built as an embedded engine of `buildProviders`.
 * Its code loads when it is built (a Lambda function's first invocation, when the selection chose
 * `local`), as a cloud reasoner's does, not when this module is imported: a function that calls
 * Bedrock never evaluates it.
 *
 * @example
 * const { reasoner } = await buildProviders(selection, { reasoner: cloudReasoner }, { embedded: { reasoner: embeddedReasoner } });
 */
export async function embeddedReasoner(): Promise<Reasoner> {
  const { LocalReasoner } = await import("../reasoning/local-reasoner");
  return new LocalReasoner();
}
