import type { CostEstimate, EndpointFloor } from "./cost-estimate";

/**
 * The cost estimate as plain text: per stage, each item's quantity and dollars per 1,000
 * voicemails, a subtotal per stage, then the totals for Standard and Express workflows, the
 * Sonic endpoint's floor a day (when the stage deploys one), the assumptions, and the lines left
 * unpriced.
 *
 * @example
 * process.stdout.write(renderCostText(estimateCost(jobs)));
 */
export function renderCostText(estimate: CostEstimate): string {
  const out: string[] = [
    `Estimated cost per 1,000 voicemails (mean of ${estimate.jobs} job(s)), list prices ${estimate.prices.region} read ${estimate.prices.readOn}`,
    "",
  ];
  const itemWidth = Math.max(...estimate.lines.map((line) => line.item.length), 4);
  const row = (item: string, quantity: string, unit: string, usd: string) =>
    `  ${item.padEnd(itemWidth)}  ${quantity.padStart(14)} ${unit.padEnd(40)} ${usd.padStart(10)}`;
  out.push(row("item", "quantity", "unit", "USD"));
  for (const stage of [...new Set(estimate.lines.map((line) => line.stage))]) {
    const lines = estimate.lines.filter((line) => line.stage === stage);
    out.push(stage);
    for (const line of lines) {
      const usd = line.usd === undefined ? "not priced" : dollars(line.usd);
      const unit = line.workflow ? `${line.unit} (${line.workflow} only)` : line.unit;
      out.push(row(line.item, quantity(line.quantity), unit, usd));
    }
    if (!lines.some((line) => line.workflow)) {
      out.push(
        row(`${stage} subtotal`, "", "", dollars(lines.reduce((sum, line) => sum + (line.usd ?? 0), 0))),
      );
    }
  }
  out.push(
    "",
    `Total, Standard workflow: ${dollars(estimate.totals.standard)} per 1,000 voicemails`,
    `Total, Express workflow:  ${dollars(estimate.totals.express)} per 1,000 voicemails`,
    ...(estimate.endpointFloor ? [floorLine(estimate.endpointFloor)] : []),
    "",
    ...estimate.assumptions.map((assumption) => `- ${assumption}`),
    ...estimate.unpriced.map((line) => `- Not in the totals (price not confirmed): ${line}`),
    "",
  );
  return out.join("\n");
}

/** The always-on endpoint's cost a day, before any voicemail: instance-hours, and dollars when priced. */
function floorLine(floor: EndpointFloor): string {
  const usd = floor.usdPerDay === undefined ? "no confirmed price" : `${dollars(floor.usdPerDay)} a day`;
  return `Sonic endpoint floor: ${floor.minInstances} x ${floor.instanceType} x 24 h = ${floor.instanceHoursPerDay} instance-hours a day (${usd}), whatever the volume`;
}

function dollars(usd: number): string {
  return `$${usd >= 1 ? usd.toFixed(2) : usd.toFixed(4)}`;
}

function quantity(value: number): string {
  return value >= 100 ? Math.round(value).toLocaleString("en-US") : value.toFixed(2);
}
