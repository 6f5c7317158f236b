import type { StageDependencies } from "../dependencies";

/**
 * What the prompt handlers talk to: the part of the stage dependencies that synthesis needs (no
 * transcriber, reasoner, records or event bus), so a prompt function can run where only a
 * synthesizer is configured.
 */
export type PromptDependencies = Pick<
  StageDependencies,
  | "store"
  | "synthesizer"
  | "logger"
  | "compute"
  | "boundaryPolicy"
  | "language"
  | "jobsInFlight"
  | "metrics"
  | "now"
>;
