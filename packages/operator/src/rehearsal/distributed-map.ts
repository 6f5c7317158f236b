import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import type { StageHandler } from "@voxtrail/functions";
import { type AslDefinition, LOCAL_ITEMS_FIELD, localMapDefinition } from "@voxtrail/workflow";
import type { Decision, PolicyEvaluator } from "./policy-evaluator";
import type { StateMachinePlan } from "./stage-plan";

/** A definition's Distributed Map, as the rehearsal plays it around the inline form the engine runs. */
export interface DistributedMap {
  name: string;
  /** The definition aws-local-stepfunctions runs (the Map inline, items at `$.localItems`). */
  local: AslDefinition;
  /** The state whose output is the Map's input, or undefined when the Map is the first state. */
  feeder: string | undefined;
  reader: { inputType: "CSV" | "JSONL"; parameters: Record<string, unknown> };
  writer: { parameters: Record<string, unknown> };
  /** The item processor's states that end an item: their output is the item's result. */
  itemEnds: string[];
}

/** The definition's one Distributed Map, or undefined when it has none. */
export function distributedMapOf(definition: AslDefinition): DistributedMap | undefined {
  const entry = Object.entries(definition.States).find(
    ([, state]) =>
      state.Type === "Map" &&
      (state.ItemProcessor as { ProcessorConfig?: { Mode?: string } } | undefined)?.ProcessorConfig?.Mode ===
        "DISTRIBUTED",
  );
  if (!entry) return undefined;
  const [name, map] = entry;
  const reader = map.ItemReader as {
    ReaderConfig: { InputType: "CSV" | "JSONL" };
    Parameters: Record<string, unknown>;
  };
  const writer = map.ResultWriter as { Parameters: Record<string, unknown> };
  // The state whose output reaches the Map: directly, or through a Choice whose default is the Map
  // (the prompts workflow's duplicate check).
  const choice = Object.entries(definition.States).find(
    ([, state]) => state.Type === "Choice" && (state as { Default?: string }).Default === name,
  )?.[0];
  const feederEntry = Object.entries(definition.States).find(
    ([, state]) => state.Next === name || (choice !== undefined && state.Next === choice),
  );
  if (feederEntry && feederEntry[1].ResultPath !== undefined) {
    throw new Error(
      `${name}: the state before the Map sets ResultPath; the rehearsal hands items to its output`,
    );
  }
  return {
    name,
    local: localMapDefinition(definition),
    feeder: definition.StartAt === name ? undefined : feederEntry?.[0],
    reader: { inputType: reader.ReaderConfig.InputType, parameters: reader.Parameters },
    writer: { parameters: writer.Parameters },
    itemEnds: Object.entries((map.ItemProcessor as { States: AslDefinition["States"] }).States)
      .filter(([, state]) => state.End === true)
      .map(([state]) => state),
  };
}

/** What playing a Distributed Map needs: the role, an S3 client signing as it, the evaluator. */
export interface MapContext {
  machine: StateMachinePlan;
  s3: S3Client;
  evaluator: PolicyEvaluator;
  record: (principal: string, operation: string, decisions: Decision[]) => void;
}

/**
 * The Map's input with its items, read as the ItemReader does (`s3:getObject` as the state
 * machine's role, through the proxy; CSV with a header row becomes objects keyed by it, JSON Lines
 * one object per line), after Step Functions' authorization to run the Map's child executions:
 * `states:StartExecution` on the state machine itself and `states:DescribeExecution` on its
 * executions ("IAM policies for using Distributed Map states" grants `execution:<name>:*`; a Map
 * Run's children are named `<name>/<label>:<id>`, so both forms are asked).
 */
export async function withItems(map: DistributedMap, context: MapContext, input: unknown): Promise<unknown> {
  const executions = context.machine.arn.replace(":stateMachine:", ":execution:");
  const run = crypto.randomUUID();
  const decisions = await Promise.all(
    [
      { action: "states:StartExecution", resource: context.machine.arn },
      { action: "states:DescribeExecution", resource: `${executions}:${run}` },
      { action: "states:DescribeExecution", resource: `${executions}/${map.name}:${run}` },
    ].map((request) => context.evaluator.authorize({ role: context.machine.role, ...request })),
  );
  context.record(context.machine.name, `${map.name}: Map Run child executions`, decisions);
  if (decisions.some((decision) => !decision.allowed)) {
    throw Object.assign(new Error(`not authorized to start the Map Run of ${map.name}`), {
      name: "States.Runtime",
    });
  }
  const { Bucket, Key } = resolve(map.reader.parameters, input) as { Bucket: string; Key: string };
  context.record(context.machine.name, `${map.name}: ItemReader s3:getObject (sent through the proxy)`, []);
  const object = await context.s3.send(new GetObjectCommand({ Bucket, Key }));
  const text = (await object.Body?.transformToString("utf8")) ?? "";
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  const items =
    map.reader.inputType === "JSONL"
      ? lines.map((line) => JSON.parse(line) as unknown)
      : lines.slice(1).map((line) => {
          const header = (lines[0] ?? "").split(",");
          const cells = line.split(",");
          return Object.fromEntries(header.map((column, i) => [column, cells[i] ?? ""]));
        });
  return { ...(input as Record<string, unknown>), [LOCAL_ITEMS_FIELD]: items };
}

/** The feeder's handler, handing its output's items to the Map. */
export function feeding(
  map: DistributedMap,
  context: MapContext,
  handler: StageHandler<unknown>,
): StageHandler<unknown> {
  return async (event, lambdaContext) => {
    const output = await handler(event, lambdaContext);
    // A duplicate delivery goes to the Duplicate state, not the Map: it has no items.
    if (typeof output === "object" && output !== null && "duplicate" in output) return output;
    return withItems(map, context, output);
  };
}

/** A Map Run's results file, its multipart upload begun when the Map started. */
export interface ResultUpload {
  /** Writes the results and the manifest when the Map ends. */
  complete(iterations: number): Promise<void>;
  /** Discards the upload when the Map Run is aborted. */
  abort(): Promise<void>;
}

/**
 * What the ResultWriter does, as the state machine's role, through the proxy. AWS's ResultWriter
 * guidance ("IAM policies for ResultWriter",
 * https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultwriter.html) grants
 * `s3:PutObject`, `s3:GetObject`, `s3:ListMultipartUploadParts` and `s3:AbortMultipartUpload` on
 * the prefix; how Step Functions spends them is not documented, so the rehearsal writes as a
 * multipart upload would: the Map Run's results file is an upload begun when the Map starts
 * (CreateMultipartUpload, `s3:PutObject`); when the Map ends its part is uploaded (UploadPart),
 * the parts listed before completing (ListParts, `s3:ListMultipartUploadParts`) and the upload
 * completed (`s3:PutObject`), the file read back for the manifest's size (HeadObject,
 * `s3:GetObject`) and `manifest.json` written (`s3:PutObject`); when the Map Run is aborted the
 * upload is discarded (AbortMultipartUpload, `s3:AbortMultipartUpload`).
 */
export async function startResults(
  map: DistributedMap,
  context: MapContext,
  mapInput: unknown,
): Promise<ResultUpload> {
  const { Bucket, Prefix } = resolve(map.writer.parameters, mapInput) as { Bucket: string; Prefix: string };
  const run = `${Prefix.replace(/\/?$/, "/")}${crypto.randomUUID()}/`;
  const Key = `${run}SUCCEEDED_0.json`;
  context.record(context.machine.name, `${map.name}: ResultWriter (multipart, sent through the proxy)`, []);
  const { UploadId } = await context.s3.send(
    new CreateMultipartUploadCommand({ Bucket, Key, ContentType: "application/json" }),
  );
  return {
    async complete(iterations) {
      const part = await context.s3.send(
        new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: JSON.stringify({ iterations }) }),
      );
      const listed = await context.s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
      if (listed.Parts?.[0]?.ETag !== part.ETag) throw new Error(`${Key}: its part was not uploaded`);
      await context.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket,
          Key,
          UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
        }),
      );
      const written = await context.s3.send(new HeadObjectCommand({ Bucket, Key }));
      await context.s3.send(
        new PutObjectCommand({
          Bucket,
          Key: `${run}manifest.json`,
          Body: JSON.stringify({
            DestinationBucket: Bucket,
            ResultFiles: { SUCCEEDED: [{ Key, Size: written.ContentLength }] },
          }),
          ContentType: "application/json",
        }),
      );
    },
    async abort() {
      await context.s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
    },
  };
}

/**
 * What Step Functions asks of the role when an execution running the Map is stopped: it aborts
 * the Map Run, stopping its running child executions (`states:StopExecution`, "IAM policies for
 * using Distributed Map states",
 * https://docs.aws.amazon.com/step-functions/latest/dg/iam-policies-eg-dist-map.html; both forms
 * of a child's name, as {@link withItems} asks), recorded under the state machine's name.
 */
export async function stopMapRun(map: DistributedMap, context: MapContext): Promise<Decision[]> {
  const executions = context.machine.arn.replace(":stateMachine:", ":execution:");
  const run = crypto.randomUUID();
  const decisions = await Promise.all(
    [`${executions}:${run}`, `${executions}/${map.name}:${run}`].map((resource) =>
      context.evaluator.authorize({ role: context.machine.role, action: "states:StopExecution", resource }),
    ),
  );
  context.record(
    context.machine.name,
    `${map.name}: Map Run aborted, its child executions stopped`,
    decisions,
  );
  return decisions;
}

/** ASL Parameters resolved against `input` (`"Key.$": "$.a.b"` paths only). */
function resolve(parameters: Record<string, unknown>, input: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(parameters).map(([key, value]) => {
      if (!key.endsWith(".$")) return [key, value];
      const path = String(value);
      if (!path.startsWith("$.")) throw new Error(`the rehearsal resolves only $. paths, not ${path}`);
      const found = path
        .slice(2)
        .split(".")
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], input);
      return [key.slice(0, -2), found];
    }),
  );
}
