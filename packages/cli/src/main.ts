import { parseArgs } from "node:util";
import { UsageError } from "./usage-error";
import { versionText } from "./version";

/**
 * The help text, loaded when printed: it lists the providers of `@voxtrail/workflow`'s registry,
 * which `voxtrail --version` has no use for.
 */
async function usage(): Promise<string> {
  return (await import("./usage")).USAGE;
}

/** The `voxtrail` command line: parses arguments, runs a command, and exits with its code. */
async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      store: { type: "string", default: ".voxtrail" },
      records: { type: "string" },
      synthesizer: { type: "string" },
      "sonic-endpoint": { type: "string" },
      "voice-id": { type: "string" },
      transcriber: { type: "string" },
      reasoner: { type: "string" },
      "reply-format": { type: "string", default: "pcm16" },
      "boundary-policy": { type: "string", default: "local" },
      redaction: { type: "string" },
      concurrency: { type: "string", default: "2" },
      json: { type: "boolean", default: false },
      stage: { type: "string" },
      timeout: { type: "string" },
      "arn-prefix": { type: "string" },
      "state-machine": { type: "string" },
      job: { type: "string" },
      all: { type: "boolean", default: false },
      html: { type: "string" },
      cost: { type: "boolean", default: false },
      bucket: { type: "string" },
      since: { type: "string" },
      format: { type: "string" },
      to: { type: "string" },
      domain: { type: "string" },
      "public-key": { type: "string", multiple: true },
      "kms-key-id": { type: "string" },
      grace: { type: "string" },
      "expect-head": { type: "string" },
      engine: { type: "string" },
      database: { type: "string" },
      workgroup: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
      version: { type: "boolean", default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.version || command === "version") {
    process.stdout.write(versionText());
    return 0;
  }
  if (values.help || command === undefined || command === "help") {
    process.stdout.write(await usage());
    return 0;
  }
  // Commands load on demand: printing a definition need not start the runtime's dependencies.
  if (command === "run" && values.stage !== undefined) {
    return (await import("./commands/run-stage")).runStageCommand(rest, { ...values, stage: values.stage });
  }
  if (command === "run") return (await import("./commands/run")).runCommand(rest, values);
  if (command === "prompts" && values.stage !== undefined) {
    return (await import("./commands/prompts-stage")).promptsStageCommand(rest, {
      ...values,
      stage: values.stage,
    });
  }
  if (command === "prompts") return (await import("./commands/prompts")).promptsCommand(rest, values);
  if (command === "lineage") return (await import("./commands/lineage")).lineageCommand(rest, values);
  if (command === "report") return (await import("./commands/report")).reportCommand(rest, values);
  if (command === "capacity") {
    process.stdout.write((await import("./commands/capacity")).capacityCommand(rest, values));
    return 0;
  }
  if (command === "definition") {
    process.stdout.write((await import("./commands/definition")).definitionCommand(rest, values));
    return 0;
  }
  throw new UsageError(`unknown command ${JSON.stringify(command)}`);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`voxtrail: ${message}\n`);
    if (
      error instanceof UsageError ||
      (error instanceof Error && error.name === "TypeError" && "code" in error)
    ) {
      process.stderr.write(`\n${await usage()}`);
      process.exitCode = 2;
    } else {
      process.exitCode = 1;
    }
  },
);
