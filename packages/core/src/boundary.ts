import * as z from "zod/mini";

/**
 * Where data goes when a provider is called (docs/architecture.md, "Principle 4"): this machine, a service in
 * our AWS account, a VPC endpoint, or a third-party API.
 */
export const Boundary = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("local") }),
  z.object({ kind: z.literal("aws-account"), service: z.string(), region: z.string() }),
  z.object({ kind: z.literal("vpc-endpoint"), service: z.string(), endpoint: z.string() }),
  z.object({ kind: z.literal("third-party"), host: z.string() }),
]);
export type Boundary = z.infer<typeof Boundary>;

/** What processed the data: provider, model and version, and where the data went. */
export const Processor = z.object({
  provider: z.string(),
  model: z.string(),
  version: z.string(),
  endpoint: z.optional(z.string()),
  boundary: Boundary,
});
export type Processor = z.infer<typeof Processor>;

/** The local boundary: the data stays in this process or on this machine. */
export const LOCAL_BOUNDARY: Boundary = { kind: "local" };
