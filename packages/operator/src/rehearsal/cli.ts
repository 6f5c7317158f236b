/**
 * `npm run rehearse -- --stage NAME [--json]`: stands the stage up as the stacks describe it and
 * runs its voicemail, prompts and batch workflows under AWS's rules (rehearsal.ts),
 * `--function-logs FILE` keeps what the functions' environments printed,
 * printing per workflow its outcome and per call the statement that allowed it, or the refusal.
 * Exit 0 when every workflow did what the stage must do, every call could be mapped to IAM, and
 * every role could be assumed by its service alone and let Lambda write its function's logs.
 * Needs `moto_server` and `.sst/platform` (both installed by `bash scripts/setup.sh`); nothing is
 * deployed and no AWS account is used.
 */
import { createWriteStream } from "node:fs";
import { parseArgs } from "node:util";
import { startMotoServer } from "./moto-server-process";
import { Rehearsal, type RehearsalReport } from "./rehearsal";
import { evaluateStage } from "./stage-evaluation";

const { values } = parseArgs({
  options: {
    stage: { type: "string", default: "dev" },
    json: { type: "boolean", default: false },
    "function-logs": { type: "string" },
  },
});
const stage = values.stage as string;
const log = (line: string) => process.stderr.write(`rehearse: ${line}\n`);

log(`evaluating the stacks for stage ${stage} under Pulumi mocks`);
const plan = await evaluateStage(stage);
const moto = await startMotoServer();
let report: RehearsalReport;
const functionLogs = values["function-logs"] ? createWriteStream(values["function-logs"]) : undefined;
const rehearsal = await Rehearsal.start({
  plan,
  motoEndpoint: moto.endpoint,
  log,
  onFunctionOutput: (component, line) => functionLogs?.write(`${component}: ${line}\n`),
}).catch((error) => {
  moto.stop();
  throw error;
});
try {
  report = await rehearsal.run();
} finally {
  await rehearsal.close();
  moto.stop();
  functionLogs?.end();
}

if (values.json) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const out: string[] = [
    `stage ${report.stage}: ${report.ok ? "every workflow as expected" : "NOT as expected"}`,
  ];
  for (const redirect of report.redirects) out.push(`  redirected: ${redirect}`);
  for (const run of report.runs) {
    const outcome = run.outcome;
    out.push(
      `  ${run.ok ? "ok  " : "FAIL"} ${run.workflow.padEnd(21)} ${outcome} (expected ${run.expected})`,
    );
  }
  out.push(`calls (${report.calls.length}):`);
  for (const call of report.calls) {
    for (const decision of call.decisions) {
      const verdict = decision.allowed
        ? `allowed by ${decision.statement ? `${decision.role} ${decision.statement.policy} statement ${decision.statement.index}` : "policy"}`
        : `DENIED: ${decision.refusal}`;
      const prefix =
        decision.context["s3:prefix"] === undefined ? "" : ` (s3:prefix ${decision.context["s3:prefix"]})`;
      out.push(
        `  ${call.principal}  ${call.operation}  ${decision.action} ${decision.resource}${prefix}  ${verdict}`,
      );
    }
    if (call.decisions.length === 0 || call.refusal) {
      out.push(
        `  ${call.principal}  ${call.operation}${call.refusal ? `  ${call.unmapped ? "UNMAPPED" : "REFUSED"}: ${call.refusal}` : ""}${call.modelled ? ` (${call.modelled})` : ""}`,
      );
    }
  }
  process.stdout.write(`${out.join("\n")}\n`);
}
process.exitCode = report.ok ? 0 : 1;
