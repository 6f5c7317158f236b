/**
 * `npm run load -- --voicemails N --arrival burst|rate:PER_MINUTE
 * [--reasoner local|bedrock-simulated] [--design staged|before-waiting] [--json]`: production's
 * voicemail workflow (the deployed ASL, the real stage handlers) under every quota the stand-ins
 * enforce, with simulated engines, on a virtual clock (docs/load-rehearsal.md).
 * `--reasoner bedrock-simulated` puts the local reasoner behind a Bedrock-like throttle
 * (DEFAULT_BEDROCK_QUOTA); `local`, the default, is production's reasoner. `--design before-waiting`
 * puts back what made a burst fail before the workflow learned to wait (`beforeWaiting`). Prints
 * the report as JSON with `--json`, else a short summary; progress goes to stderr. Exit 0 when
 * every voicemail completed, none failed, none was duplicated, none was lost, and `lineage verify`
 * of the store (signed after the run) is clean.
 */
import { parseArgs } from "node:util";
import { beforeWaiting } from "./before-waiting";
import type { Arrival } from "./load-options";
import { DEFAULT_BEDROCK_QUOTA, productionLoadQuotas } from "./load-options";
import { humanSummary, loadReport } from "./load-report";
import { runLoad } from "./load-run";
import { ProgressLine } from "./progress";

const { values } = parseArgs({
  options: {
    voicemails: { type: "string", default: "100" },
    arrival: { type: "string", default: "burst" },
    reasoner: { type: "string", default: "local" },
    design: { type: "string", default: "staged" },
    json: { type: "boolean", default: false },
  },
});

const voicemails = Number(values.voicemails);
if (!(Number.isInteger(voicemails) && voicemails >= 1)) {
  process.stderr.write("load: --voicemails must be a positive whole number\n");
  process.exit(2);
}
const arrival = parseArrival(values.arrival as string);
if (values.reasoner !== "local" && values.reasoner !== "bedrock-simulated") {
  process.stderr.write("load: --reasoner must be local or bedrock-simulated\n");
  process.exit(2);
}
if (values.design !== "staged" && values.design !== "before-waiting") {
  process.stderr.write("load: --design must be staged or before-waiting\n");
  process.exit(2);
}
const staged = productionLoadQuotas();
const quotas = values.design === "before-waiting" ? beforeWaiting(staged) : staged;
const progress = new ProgressLine(voicemails);
const result = await runLoad({
  voicemails,
  arrival,
  quotas: values.reasoner === "bedrock-simulated" ? { ...quotas, bedrock: DEFAULT_BEDROCK_QUOTA } : quotas,
  onOutcome: (outcome, virtualMs) => progress.count(outcome.status, virtualMs),
  onLineageCheck: () => {
    progress.end();
    process.stderr.write("signing and verifying the store's lineage...\n");
  },
});
const report = loadReport(result);
process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : humanSummary(report));
const clean =
  report.completed === voicemails &&
  report.failed.total === 0 &&
  report.duplicated === 0 &&
  report.lost === 0 &&
  report.lineage.ok;
process.exit(clean ? 0 : 1);

function parseArrival(text: string): Arrival {
  if (text === "burst") return { kind: "burst" };
  const rate = /^rate:(\d+(?:\.\d+)?)$/.exec(text);
  const perMinute = Number(rate?.[1]);
  if (rate && perMinute > 0) return { kind: "rate", perMinute };
  process.stderr.write("load: --arrival must be burst or rate:PER_MINUTE (e.g. rate:600)\n");
  process.exit(2);
}
