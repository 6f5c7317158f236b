import { instanceHourPrice } from "@voxtrail/report";
import { SERVICE_QUOTAS_REGION } from "@voxtrail/workflow";
import { type CapacityPlan, PLANNED_VOLUMES, planCapacity } from "../capacity/capacity-model";
import { DEFAULT_CAPACITY_PARAMETERS } from "../capacity/capacity-parameters";
import { type CapacityReportContext, renderCapacityText } from "../capacity/render-capacity";
import { stageSizing } from "../capacity/stage-sizing";
import { REPOSITORY_ROOT } from "../repository-root";
import { UsageError } from "../usage-error";

/** Options of `voxtrail capacity`. */
export interface CapacityOptions {
  /** The stage whose Sonic endpoint to size; `production` by default. */
  stage?: string | undefined;
  json: boolean;
}

/** The stage sized when `--stage` is left out: the one that creates its Sonic endpoint. */
const DEFAULT_CAPACITY_STAGE = "production";

/** The plans and what they were made from, as `--json` prints them. */
export interface CapacityReport extends CapacityReportContext {
  plans: CapacityPlan[];
}

/**
 * The capacity report of a stage: for 1,000 to 1,000,000 voicemails a day and for a backfill of
 * each size, the Sonic instances, the AWS quotas to raise, the drain time at the tightest stage
 * and the endpoint's instance-hours (and dollars, where priced) per 1,000 voicemails, from the
 * stage file's endpoint sizing, AWS's default quotas and the model's named parameters.
 *
 * @example
 * capacityReport("production").plans.length; // 8
 */
export function capacityReport(stage: string, root: string = REPOSITORY_ROOT): CapacityReport {
  const { sizing, file } = stageSizing(stage, root);
  const inputs = {
    sizing,
    parameters: DEFAULT_CAPACITY_PARAMETERS,
    instanceHourUsd: instanceHourPrice(sizing.instanceType)?.usd,
  };
  const plans = (["daily", "backfill"] as const).flatMap((kind) =>
    PLANNED_VOLUMES.map((voicemails) => planCapacity({ kind, voicemails }, inputs)),
  );
  return {
    stage,
    file,
    sizing,
    parameters: DEFAULT_CAPACITY_PARAMETERS,
    quotaRegion: SERVICE_QUOTAS_REGION,
    plans,
  };
}

/**
 * `voxtrail capacity [--stage NAME] [--json]`: prints {@link capacityReport} as text, or as JSON
 * with `--json`. Returns the text printed.
 */
export function capacityCommand(positionals: string[], options: CapacityOptions): string {
  if (positionals.length > 0)
    throw new UsageError(`capacity takes no arguments, got ${positionals.join(" ")}`);
  const report = capacityReport(options.stage ?? DEFAULT_CAPACITY_STAGE);
  if (options.json) return `${JSON.stringify(report, null, 2)}\n`;
  const { plans, ...context } = report;
  return renderCapacityText(plans, context);
}
