/**
 * `npm run doctor -- --stage NAME [--json]`: asks the AWS account (standard AWS configuration:
 * AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_<SERVICE>) what a deploy of the stage needs and only
 * the account knows (packages/operator/src/doctor/doctor.ts), and prints one line per finding: `ok` per check
 * that passed, `missing` per missing thing with what to do, `unchecked` when AWS could not be
 * asked. `--json` prints the report as JSON instead. Exit 0 when everything is there, 1 when
 * anything is missing or unchecked, 2 when the stage's configuration or the command line is wrong.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadStageConfig } from "../../../../stacks/stage-config";
import { createDoctorClients } from "./clients";
import { formatFinding, runDoctor } from "./doctor";

/** The command line is not `--stage NAME [--json]`. */
export class DoctorUsageError extends Error {
  constructor(message: string) {
    super(`${message}\nusage: npm run doctor -- --stage NAME [--json]`);
    this.name = "DoctorUsageError";
  }
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

async function main(): Promise<number> {
  let values: { stage?: string | undefined; json?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      options: { stage: { type: "string" }, json: { type: "boolean", default: false } },
    }));
  } catch (error) {
    throw new DoctorUsageError((error as Error).message);
  }
  if (!values.stage) throw new DoctorUsageError("--stage is required");
  const { config, file } = loadStageConfig(values.stage, root, process.env);
  const report = await runDoctor(config, createDoctorClients());
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ stage: values.stage, file, ...report }, null, 2)}\n`);
  } else {
    process.stderr.write(`doctor: stage ${values.stage} (${file}) in ${report.region}\n`);
    if (report.findings.length === 0) {
      process.stderr.write(
        "doctor: nothing to ask the account (no Amazon Transcribe, no Sonic on SageMaker, no Bedrock reasoner)\n",
      );
    }
    for (const finding of report.findings) process.stdout.write(`${formatFinding(finding)}\n`);
  }
  return report.ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `doctor: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
