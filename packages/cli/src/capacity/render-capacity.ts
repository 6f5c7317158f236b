import type { CapacityPlan, EndpointSizing } from "./capacity-model";
import type { CapacityParameters } from "./capacity-parameters";

/** What the capacity report shows besides the plans. */
export interface CapacityReportContext {
  stage: string;
  /** The stage file, relative to the repository. */
  file: string;
  sizing: EndpointSizing;
  parameters: CapacityParameters;
  /** The Region whose default quotas the plans use. */
  quotaRegion: string;
}

/**
 * The capacity plans as plain text: one table row per scenario (Sonic instances, drain time and
 * its tightest stage, endpoint instance-hours and dollars per 1,000 voicemails), the quotas each
 * scenario needs raised, then every model parameter with its value and reason.
 *
 * @example
 * process.stdout.write(renderCapacityText(plans, context));
 */
export function renderCapacityText(plans: CapacityPlan[], context: CapacityReportContext): string {
  const { sizing } = context;
  const header = ["Volume", "Sonic instances", "Drain time (tightest stage)", "Endpoint per 1,000"];
  const rows = plans.map((plan) => [
    volume(plan),
    `${plan.sonicInstances}${plan.beyondMaxInstances ? ` (max ${sizing.maxInstances})` : ""}`,
    `${duration(plan.drainSeconds)} (${plan.tightestStage})`,
    `${plan.instanceHoursPer1000.toFixed(2)} instance-h${plan.usdPer1000 === undefined ? "" : `, $${plan.usdPer1000.toFixed(2)}`}`,
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  const out = [
    `Stage ${context.stage} (${context.file}): Sonic on ${sizing.instanceType}, ${sizing.minInstances} to ${sizing.maxInstances} instances; AWS default quotas (${context.quotaRegion}).`,
    "Daily volumes at their peak rate; a backfill put in at once starts executions at the StartExecution refill rate.",
    "Drain = voicemails x time held / concurrency at the tightest stage, with default quotas and at most maxInstances.",
    "",
    line(header),
    line(widths.map((width) => "-".repeat(width))),
    ...rows.map(line),
    "",
    "Quotas to raise for the rate (default -> needed); without them, that stage throttles or refuses:",
    ...plans.map(
      (plan) =>
        `  ${volume(plan)}: ${plan.quotasToRaise.map((quota) => `${quota.name} ${count(quota.default)} -> ${count(quota.needed)}`).join("; ")}`,
    ),
    "",
    "Endpoint cost counts the always-on floor (minInstances x 24 instance-hours a day), or a backfill's instances for its drain.",
    ...(plans.some((plan) => plan.usdPer1000 === undefined)
      ? [`No confirmed price for ${sizing.instanceType}: instance-hours only.`]
      : []),
    "",
    "Parameters:",
    ...Object.entries(context.parameters).map(
      ([name, parameter]) => `  ${name} = ${parameter.value} ${parameter.unit}: ${parameter.why}`,
    ),
    "  (from the workflow) Transcribe job waited for by its state-change event: 2 GetTranscriptionJob calls a voicemail (the await step's look, the read)",
    "",
  ];
  return out.join("\n");
}

function volume(plan: CapacityPlan): string {
  const voicemails = count(plan.scenario.voicemails);
  return plan.scenario.kind === "daily" ? `${voicemails} a day` : `${voicemails} backfill`;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** Seconds as the largest unit that keeps the figure readable. */
function duration(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${(seconds / 3_600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} days`;
}
