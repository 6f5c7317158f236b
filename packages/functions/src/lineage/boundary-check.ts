import {
  type ArtifactKind,
  BoundaryViolation,
  decideBoundaries,
  describeRefusal,
  type IntendedFlow,
} from "@voxtrail/core";
import type { StageDependencies } from "../dependencies";
import type { Activity } from "../kernel/activity-recorder";

/**
 * Checks the attempt's intended data flows against the stage environment's boundary policy and
 * records the decision on the activity. Call it before reading caller data or calling any
 * provider: a refusal throws `BoundaryViolation` (recorded by `withActivity`), so no byte is sent.
 * The stage's own code is a flow too: the kinds it handles enter the compute boundary.
 *
 * @example
 * enforceBoundaries(deps, activity, "Synthesize", [
 *   { processor: deps.synthesizer.processor, kinds: ["reply-text", "reply-audio"] },
 * ]);
 */
export function enforceBoundaries(
  deps: Pick<StageDependencies, "boundaryPolicy" | "compute">,
  activity: Activity,
  stage: string,
  intended: IntendedFlow[],
): void {
  const kinds = [...new Set(intended.flatMap((flow): ArtifactKind[] => flow.kinds))];
  const stageCode: IntendedFlow = {
    processor: { provider: "voxtrail", model: `${stage} stage`, version: "1", boundary: deps.compute },
    kinds,
  };
  const decision = decideBoundaries(deps.boundaryPolicy, kinds.length > 0 ? [stageCode, ...intended] : []);
  activity.policy = decision;
  if (decision.outcome === "refused") throw new BoundaryViolation(describeRefusal(decision));
}
