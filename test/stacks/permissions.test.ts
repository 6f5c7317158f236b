import { CreateEventBusCommand, EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { CreateKeyCommand, KMSClient } from "@aws-sdk/client-kms";
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  PutBucketVersioningCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import {
  CreateStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import { LOCAL_BOUNDARY, type Processor, PromptRow, SynthesisRejected } from "@voxtrail/core";
import {
  createBatchHandlers,
  createPromptHandlers,
  createStageHandlers,
  EventBridgePublisher,
  type IndexRun,
  type PreparedPrompts,
  type StageDependencies,
  signLineageDigest,
  updateLineageIndex,
} from "@voxtrail/functions";
import { KmsSigner, StepFunctionsLiveness } from "@voxtrail/lineage";
import { latestManifest, vacuumIndex } from "@voxtrail/lineage/edge-index";
import { LocalReasoner } from "@voxtrail/providers";
import { S3Store } from "@voxtrail/storage";
import {
  BATCH_FUNCTIONS,
  keys,
  PROMPT_FUNCTIONS,
  promptKeys,
  STAGE_FUNCTIONS,
  type StageFunction,
} from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";
import {
  batchStateMachinePermissions,
  DEPLOYED_FUNCTIONS,
  type DeployedFunction,
  executionsOf,
  FUNCTION_ACCESS,
  type IamStatement,
  LINEAGE_INDEX_COMPACTOR_ACCESS,
  LINEAGE_SIGNER_ACCESS,
  lineageIndexCompactorPermissions,
  lineageSignerPermissions,
  promptsStateMachinePermissions,
  stagePermissions,
  stateMachineNames,
  transcribeDataAccessPermissions,
  transcriptionJobsOf,
  voicemailStateMachinePermissions,
} from "../../stacks/permissions";
import { motoClientConfig } from "../setup/aws";

const bucket = `voxtrail-permissions-${Date.now()}`;
const busName = `voxtrail-permissions-${Date.now()}`;
const busArn = `arn:aws:events:us-east-1:123456789012:event-bus/${busName}`;
/** The state machines' names as a stage `perm<time>` of the app `voxtrail` has them. */
const names = stateMachineNames("voxtrail", `perm${Date.now()}`);
const targets = {
  partition: "aws",
  region: "us-east-1",
  account: "123456789012",
  bucket,
  outcomeBusArn: busArn,
  voicemailStateMachineName: names.voicemail,
  promptsStateMachineName: names.prompts,
};

/**
 * One AWS call a handler made, as IAM sees it: the action, the resource, the S3 list prefix; and
 * whether it was a GET or HEAD of a key that was not there (404 here, where moto checks no IAM).
 */
interface Call {
  fn: DeployedFunction | "lineageSigner" | "lineageIndexCompactor";
  command: string;
  action: string;
  resource: string;
  prefix?: string;
  missing?: boolean;
}

/** The IAM action and resource of an SDK command the handlers send. */
function authorization(command: string, input: Record<string, string>): Omit<Call, "fn" | "command"> {
  switch (command) {
    case "GetObjectCommand":
    case "HeadObjectCommand":
      return { action: "s3:GetObject", resource: `arn:aws:s3:::${input.Bucket}/${input.Key}` };
    case "PutObjectCommand":
      return { action: "s3:PutObject", resource: `arn:aws:s3:::${input.Bucket}/${input.Key}` };
    case "ListObjectsV2Command":
      return {
        action: "s3:ListBucket",
        resource: `arn:aws:s3:::${input.Bucket}`,
        prefix: input.Prefix ?? "",
      };
    case "ListObjectVersionsCommand":
      return {
        action: "s3:ListBucketVersions",
        resource: `arn:aws:s3:::${input.Bucket}`,
        prefix: input.Prefix ?? "",
      };
    case "DeleteObjectCommand":
      return {
        action: input.VersionId ? "s3:DeleteObjectVersion" : "s3:DeleteObject",
        resource: `arn:aws:s3:::${input.Bucket}/${input.Key}`,
      };
    case "PutEventsCommand":
      return { action: "events:PutEvents", resource: busArn };
    case "DescribeExecutionCommand":
      return { action: "states:DescribeExecution", resource: input.executionArn as string };
    case "SignCommand":
      return { action: "kms:Sign", resource: input.KeyId as string };
    case "GetPublicKeyCommand":
      return { action: "kms:GetPublicKey", resource: input.KeyId as string };
    default:
      throw new Error(`no IAM mapping for ${command}: add it here and to stacks/permissions.ts`);
  }
}

/** IAM's `*` wildcard (any characters, `/` included). */
function matches(pattern: string, value: string): boolean {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(value);
}

function allows(statements: IamStatement[], call: Call): boolean {
  return statements.some(
    (s) =>
      s.actions.includes(call.action) &&
      s.resources.some((r) => matches(r, call.resource)) &&
      (s.conditions ?? []).every(
        (c) =>
          c.test === "StringLike" &&
          c.variable === "s3:prefix" &&
          c.values.some((v) => matches(v, call.prefix ?? "")),
      ),
  );
}

const calls: Call[] = [];

/** The part of an SDK client's middleware stack this test uses, the same for every client. */
type Handler = (args: { input: object }) => Promise<unknown>;
interface Recordable {
  middlewareStack: {
    add(
      middleware: (next: Handler, context: { commandName?: string }) => Handler,
      options: { step: "initialize"; name: string },
    ): void;
  };
}

/** An SDK client whose commands are recorded under the function that sent them. */
function recorded<C extends S3Client | EventBridgeClient | SFNClient | KMSClient>(
  client: C,
  fn: Call["fn"],
): C {
  (client as unknown as Recordable).middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "unknown";
      const call: Call = { fn, command, ...authorization(command, args.input as Record<string, string>) };
      calls.push(call);
      try {
        return await next(args);
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (call.action === "s3:GetObject" && status === 404) call.missing = true;
        throw error;
      }
    },
    { step: "initialize", name: "recordIamCalls" },
  );
  return client;
}

const processor: Processor = { provider: "test", model: "test", version: "0", boundary: LOCAL_BOUNDARY };

/** A synthesizer that answers with a little audio, or refuses a text that asks it to. */
const synthesizer: StageDependencies["synthesizer"] = {
  processor,
  synthesize: (request) => ({
    async *[Symbol.asyncIterator]() {
      if (request.text.includes("refuse")) throw new SynthesisRejected("the synthesizer refused this text");
      yield new Uint8Array(3200);
    },
    timings: () => [],
  }),
};

/**
 * Dependencies of one function over moto's S3, EventBridge and Step Functions, with fixed
 * providers; Ingest asks moto's Step Functions whether a job's execution still runs.
 */
async function stageDependencies(fn: DeployedFunction): Promise<StageDependencies> {
  const { deps } = await testDependencies({
    store: new S3Store({ client: recorded(new S3Client(motoClientConfig()), fn), bucket }),
    executions: new StepFunctionsLiveness(recorded(new SFNClient(motoClientConfig()), fn)),
    events: new EventBridgePublisher({
      client: recorded(new EventBridgeClient(motoClientConfig()), fn),
      busName,
    }),
    transcriber: {
      processor,
      transcribe: async () => ({
        text: "hi this is sam about order 4271 please call me back",
        words: [],
        language: "en",
        audioMs: 1000,
        processor,
      }),
    },
    reasoner: new LocalReasoner(),
    records: { processor, find: async () => undefined },
    synthesizer,
  });
  return deps;
}

/** The handler of each of `functions` that `create` makes, each over its own function's dependencies. */
async function handlersOf<F extends DeployedFunction, H>(
  functions: readonly F[],
  create: (deps: StageDependencies) => Record<F, H>,
): Promise<Record<F, H>> {
  return Object.fromEntries(
    await Promise.all(functions.map(async (fn) => [fn, create(await stageDependencies(fn))[fn]] as const)),
  ) as Record<F, H>;
}

const startTime = "2026-01-01T00:00:01.500Z";
const objectCreated = (key: string) => ({
  source: "aws.s3",
  "detail-type": "Object Created",
  time: "2026-01-01T00:00:01.000Z",
  // No etag: the event names the key's current object (an event's etag is read with If-Match).
  detail: { bucket: { name: bucket }, object: { key } },
});

/** The key of an object ARN in the test bucket. */
const keyOf = (resource: string) => resource.slice(`arn:aws:s3:::${bucket}/`.length);

/** The calls made from `from` on (an index into `calls`) until now. */
const since = (from: number) => calls.slice(from);

describe("least privilege: every AWS call a handler makes is in its function's permissions", () => {
  const sfn = new SFNClient(motoClientConfig());
  let firstExecution: string;
  let promptsExecution: string;
  let jobId: string;
  let promptsJobId: string;
  let opened: unknown;
  const duplicates: Record<
    "inProgress" | "completed" | "promptsInProgress",
    { answer: unknown; calls: Call[] }
  > = {
    inProgress: { answer: undefined, calls: [] },
    completed: { answer: undefined, calls: [] },
    promptsInProgress: { answer: undefined, calls: [] },
  };

  beforeAll(async () => {
    await new S3Client(motoClientConfig()).send(new CreateBucketCommand({ Bucket: bucket }));
    await new EventBridgeClient(motoClientConfig()).send(new CreateEventBusCommand({ Name: busName }));
    // The voicemail state machine under the name the stage gives it; moto keeps its executions running.
    const { stateMachineArn } = await sfn.send(
      new CreateStateMachineCommand({
        name: names.voicemail,
        roleArn: "arn:aws:iam::123456789012:role/voxtrail-test",
        definition: JSON.stringify({ StartAt: "Wait", States: { Wait: { Type: "Pass", End: true } } }),
      }),
    );
    firstExecution = (await sfn.send(new StartExecutionCommand({ stateMachineArn, input: "{}" })))
      .executionArn as string;
    const executionId = (name: string) =>
      `${stateMachineArn?.replace(":stateMachine:", ":execution:")}:${name}`;
    // The prompts state machine likewise: PreparePrompts asks whether a claimed job's execution runs.
    const prompts = await sfn.send(
      new CreateStateMachineCommand({
        name: names.prompts,
        roleArn: "arn:aws:iam::123456789012:role/voxtrail-test",
        definition: JSON.stringify({ StartAt: "Wait", States: { Wait: { Type: "Pass", End: true } } }),
      }),
    );
    promptsExecution = (
      await sfn.send(new StartExecutionCommand({ stateMachineArn: prompts.stateMachineArn, input: "{}" }))
    ).executionArn as string;

    const handlers = await handlersOf(STAGE_FUNCTIONS, createStageHandlers);
    const seed = new S3Store({ client: new S3Client(motoClientConfig()), bucket });
    const samples = new Int16Array(8000).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
    );
    const tone = writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples));
    await seed.put("incoming/voicemail/a.wav", tone, { contentType: "audio/wav" });
    await seed.put("incoming/voicemail/notes.txt", "not audio", { contentType: "text/plain" });

    // One job through every stage, the way the state machine passes the state on, run by a real
    // (moto) execution of the voicemail state machine.
    const deliver = (key: string, id: string) =>
      handlers.ingest({ event: objectCreated(key), execution: { id, startTime } }, context);
    const state = (await deliver("incoming/voicemail/a.wav", firstExecution)) as Record<string, unknown>;
    jobId = state.jobId as string;
    // The same upload delivered again while the first execution runs: Step Functions says it runs.
    let from = calls.length;
    duplicates.inProgress.answer = await deliver("incoming/voicemail/a.wav", executionId("second"));
    duplicates.inProgress.calls = since(from);
    state.transcribe = await handlers.transcribe(state, context);
    state.reason = await handlers.reason(state, context);
    state.synthesize = await handlers.synthesize(state, context);
    await handlers.finalize(state, context);
    // And again once the job is done: the claim's report says it succeeded.
    from = calls.length;
    duplicates.completed.answer = await deliver("incoming/voicemail/a.wav", executionId("third"));
    duplicates.completed.calls = since(from);
    // And one that fails in Ingest and is recorded.
    const failing = objectCreated("incoming/voicemail/notes.txt");
    await expect(deliver("incoming/voicemail/notes.txt", firstExecution)).rejects.toMatchObject({
      name: "InvalidAudio",
    });
    // Its second attempt (a retry in the same execution) names the first one's record by hash.
    await expect(deliver("incoming/voicemail/notes.txt", firstExecution)).rejects.toMatchObject({
      name: "InvalidAudio",
    });
    await handlers.recordFailure(
      {
        stage: "Ingest",
        state: { ...failing, failure: { Error: "InvalidAudio", Cause: "{}" } },
        execution: { id: firstExecution, startTime },
      },
      context,
    );

    // One prompts job, as the prompts state machine runs it (delivered again while it runs: a
    // duplicate): one prompt synthesized (skipped on a second attempt, made again once its audio
    // is gone), one refused and recorded, one never run (the Map did not reach it), then the report.
    const promptHandlers = await handlersOf(PROMPT_FUNCTIONS, createPromptHandlers);
    const manifest = promptKeys.incomingManifest("menu.csv");
    await seed.put(
      manifest,
      "id,text\nwelcome,Welcome to voxtrail.\nclosed,Please refuse this one.\nbye,Goodbye.\n",
      {
        contentType: "text/csv",
      },
    );
    const prepare = (id: string) =>
      promptHandlers.preparePrompts(
        { event: objectCreated(manifest), execution: { id, startTime } },
        context,
      );
    const prepared = (await prepare(promptsExecution)) as PreparedPrompts;
    promptsJobId = prepared.jobId;
    // A retry in the same execution after its rows went missing: a second attempt, which names the
    // first one's record by hash.
    await seed.delete(prepared.rows.key);
    expect(await prepare(promptsExecution)).toMatchObject({ jobId: prepared.jobId, rows: prepared.rows });
    from = calls.length;
    duplicates.promptsInProgress.answer = await prepare(
      `${promptsExecution.slice(0, promptsExecution.lastIndexOf(":"))}:again`,
    );
    duplicates.promptsInProgress.calls = since(from);
    const rows = (await seed.getBytes(prepared.rows.key))
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((line) => PromptRow.parse(JSON.parse(line)));
    const item = (row: PromptRow) => ({ jobId: prepared.jobId, rows: prepared.rows, row });
    const [welcome, closed] = rows as [PromptRow, PromptRow];
    expect(await promptHandlers.synthesizePrompt(item(welcome), context)).toEqual({
      id: "welcome",
      status: "succeeded",
    });
    expect(await promptHandlers.synthesizePrompt(item(welcome), context)).toEqual({
      id: "welcome",
      status: "skipped",
    });
    await new S3Client(motoClientConfig()).send(
      new DeleteObjectCommand({ Bucket: bucket, Key: promptKeys.audio(prepared.jobId, "welcome") }),
    );
    expect(await promptHandlers.synthesizePrompt(item(welcome), context)).toEqual({
      id: "welcome",
      status: "succeeded",
    });
    await expect(promptHandlers.synthesizePrompt(item(closed), context)).rejects.toMatchObject({
      name: "SynthesisRejected",
    });
    await promptHandlers.recordPromptFailure(
      { ...item(closed), failure: { Error: "SynthesisRejected", Cause: "{}" } },
      context,
    );
    await promptHandlers.writePromptsReport(prepared, context);

    // One batch opened, as the batch state machine's first step does with its S3 event (the key
    // form-encoded, as S3 writes it): the ItemReader, not the function, then reads the manifest.
    const batchHandlers = await handlersOf(BATCH_FUNCTIONS, createBatchHandlers);
    const batchEvent = objectCreated("incoming/batches/night+run%C3%BC.csv");
    opened = await batchHandlers.openBatch(
      { ...batchEvent, detail: { ...batchEvent.detail, reason: "PutObject" } },
      context,
    );
  }, 60_000);

  afterAll(async () => {
    await sfn.send(new StopExecutionCommand({ executionArn: firstExecution }));
    await sfn.send(new StopExecutionCommand({ executionArn: promptsExecution }));
  });

  it("recorded calls from every deployed function but OpenBatch, which answers from its event alone", () => {
    expect(new Set(calls.map((c) => c.fn))).toEqual(
      new Set(DEPLOYED_FUNCTIONS.filter((fn) => fn !== "openBatch")),
    );
    expect(opened).toEqual({
      bucket,
      key: "incoming/batches/night runü.csv",
      time: "2026-01-01T00:00:01.000Z",
    });
  });

  it("answers a second delivery during the first execution as a duplicate in progress, asking Step Functions, writing nothing", () => {
    expect(duplicates.inProgress.answer).toEqual({
      jobId,
      duplicate: { reason: "in-progress", executionId: firstExecution, run: 1 },
    });
    expect(duplicates.inProgress.calls.map((c) => [c.action, c.resource])).toContainEqual([
      "states:DescribeExecution",
      firstExecution,
    ]);
    expect(duplicates.inProgress.calls.filter((c) => c.action === "s3:PutObject")).toEqual([]);
  });

  it("answers a delivery after Finalize as a duplicate of a completed job, from the claim and the report, writing nothing", () => {
    expect(duplicates.completed.answer).toEqual({
      jobId,
      duplicate: { reason: "completed", executionId: firstExecution, run: 1 },
    });
    const read = duplicates.completed.calls.filter((c) => c.action === "s3:GetObject").map((c) => c.resource);
    expect(read).toContain(`arn:aws:s3:::${bucket}/claims/${jobId}/run-01.json`);
    expect(read).toContain(`arn:aws:s3:::${bucket}/reports/${jobId}.json`);
    expect(duplicates.completed.calls.filter((c) => c.action === "s3:PutObject")).toEqual([]);
    expect(duplicates.completed.calls.filter((c) => c.action.startsWith("states:"))).toEqual([]);
  });

  it("answers a second delivery of a manifest during its first execution as a duplicate in progress, writing nothing", () => {
    expect(duplicates.promptsInProgress.answer).toEqual({
      jobId: promptsJobId,
      duplicate: { reason: "in-progress", executionId: promptsExecution, run: 1 },
    });
    const { calls: made } = duplicates.promptsInProgress;
    expect(made.map((c) => [c.action, c.resource])).toContainEqual([
      "states:DescribeExecution",
      promptsExecution,
    ]);
    expect(made.filter((c) => c.action === "s3:GetObject").map((c) => keyOf(c.resource))).toEqual([
      `claims/${promptsJobId}/run-01.json`,
      `prompts/${promptsJobId}/report.json`,
    ]);
    expect(made.filter((c) => c.action === "s3:PutObject")).toEqual([]);
  });

  it.each(DEPLOYED_FUNCTIONS)("%s's calls are all allowed by its policy", (fn) => {
    const policy = stagePermissions(fn, targets);
    const denied = calls.filter((c) => c.fn === fn && !allows(policy, c));
    expect(denied).toEqual([]);
  });

  it.each(DEPLOYED_FUNCTIONS)("%s uses every object pattern it is granted", (fn) => {
    const own = calls.filter((c) => c.fn === fn);
    const object = (pattern: string) => `arn:aws:s3:::${bucket}/${pattern}`;
    const unused = [
      ...FUNCTION_ACCESS[fn].reads.filter(
        (p) => !own.some((c) => c.action === "s3:GetObject" && matches(object(p), c.resource)),
      ),
      ...FUNCTION_ACCESS[fn].writes.filter(
        (p) => !own.some((c) => c.action === "s3:PutObject" && matches(object(p), c.resource)),
      ),
    ];
    expect(unused).toEqual([]);
    if (FUNCTION_ACCESS[fn].describesVoicemailExecutions || FUNCTION_ACCESS[fn].describesPromptsExecutions) {
      expect(own.some((c) => c.action === "states:DescribeExecution")).toBe(true);
    }
  });

  it("probes for missing keys where the handlers ask whether a key is there", () => {
    const probes = (fn: DeployedFunction) =>
      new Set(calls.filter((c) => c.fn === fn && c.missing).map((c) => keyOf(c.resource).split("/")[0]));
    // Ingest: the report of a job still running; the prompts functions: what a first run has not
    // written yet (rows, bad rows, results, report), and audio that is gone.
    expect(probes("ingest")).toEqual(new Set(["reports"]));
    for (const fn of ["preparePrompts", "synthesizePrompt", "writePromptsReport"] as const) {
      expect(probes(fn), fn).toEqual(new Set(["prompts"]));
    }
  });

  it.each(DEPLOYED_FUNCTIONS)(
    "%s may list every key it finds missing, so S3 answers 404 and not 403 (GetObject/HeadObject API reference)",
    (fn) => {
      const policy = stagePermissions(fn, targets);
      const forbidden = calls.filter(
        (c) =>
          c.fn === fn &&
          c.missing &&
          !allows(policy, {
            ...c,
            action: "s3:ListBucket",
            resource: `arn:aws:s3:::${bucket}`,
            prefix: keyOf(c.resource),
          }),
      );
      expect(forbidden.map((c) => keyOf(c.resource))).toEqual([]);
    },
  );

  it.each(DEPLOYED_FUNCTIONS)("%s may list only prefixes it lists or keys it probes", (fn) => {
    const own = calls.filter((c) => c.fn === fn);
    const unused = FUNCTION_ACCESS[fn].lists.filter(
      (pattern) =>
        !own.some(
          (c) =>
            (c.action === "s3:ListBucket" && matches(pattern, c.prefix ?? "")) ||
            (c.missing && matches(pattern, keyOf(c.resource))),
        ),
    );
    expect(unused).toEqual([]);
  });

  it.each(DEPLOYED_FUNCTIONS)("%s is not granted what only other functions do", (fn) => {
    const others = calls.filter((c) => c.fn !== fn && c.action !== "s3:ListBucket");
    const allowed = others.filter((c) => allows(stagePermissions(fn, targets), c));
    // Whatever another function does and this one may also do, this one does too.
    const own = calls.filter((c) => c.fn === fn);
    for (const call of allowed) {
      expect(own.some((c) => c.action === call.action && matchesSameFile(c.resource, call.resource))).toBe(
        true,
      );
    }
  });
});

/** Two object ARNs name the same file of the key layout (the job id aside). */
function matchesSameFile(a: string, b: string): boolean {
  const file = (arn: string) =>
    arn
      .replace(/\/lineage-index\/pending\/[^/]+\/[^/]+$/, "/lineage-index/pending/JOB/NOTE")
      .replace(/\/(artifacts|lineage|prompts|claims)\/[^/]+\//, "/$1/JOB/")
      .replace(/\/[^/]+\.json$/, "/X.json");
  return file(a) === file(b);
}

/** The one statement whose resource is `*`: StartTranscriptionJob, held to the stage's bucket and output key. */
const START_TRANSCRIPTION_JOB: IamStatement = {
  actions: ["transcribe:StartTranscriptionJob"],
  resources: ["*"],
  conditions: [
    { test: "StringEquals", variable: "transcribe:OutputBucketName", values: [bucket] },
    { test: "StringLike", variable: "transcribe:OutputKey", values: ["artifacts/*/transcribe-output.json"] },
  ],
};

describe("nothing is wildcarded beyond its prefixes", () => {
  const prefixes = [
    "incoming/voicemail/",
    "artifacts/",
    "lineage/",
    "lineage-summaries/",
    "lineage-index/pending/",
    "reports/",
    "claims/",
    "incoming/prompts/",
    "prompts/",
    "transcription-waits/",
  ];

  it.each(DEPLOYED_FUNCTIONS)("%s names actions and keys of the layout, never a bare wildcard", (fn) => {
    const configured = {
      ...targets,
      sonicEndpoint: "Sonic-Dev",
      bedrockModelId: "amazon.nova-lite-v1:0",
      recordsUri: "s3://records-bucket/records.jsonl",
      transcribeJobPrefix: "voxtrail-perm-",
    };
    for (const statement of stagePermissions(fn, configured)) {
      for (const action of statement.actions) expect(action).not.toContain("*");
      // The two actions that take no resource type: StartTranscriptionJob, `*` held by its
      // condition keys to the stage's bucket and a job's output document; SendTaskSuccess, whose
      // task token names the task.
      if (statement.actions.includes("transcribe:StartTranscriptionJob")) {
        expect(statement).toEqual(START_TRANSCRIPTION_JOB);
        continue;
      }
      if (statement.actions.includes("states:SendTaskSuccess")) {
        expect(statement).toEqual({ actions: ["states:SendTaskSuccess"], resources: ["*"] });
        continue;
      }
      for (const resource of statement.resources) {
        expect(resource).not.toBe("*");
        const key = resource.startsWith(`arn:aws:s3:::${bucket}/`)
          ? resource.slice(`arn:aws:s3:::${bucket}/`.length)
          : undefined;
        if (key !== undefined)
          expect(prefixes.some((p) => key.startsWith(p) && key.length > p.length)).toBe(true);
        // The other patterns: any execution of the voicemail or prompts state machine, any of the
        // stage's transcription jobs (run-time ids and names).
        else
          expect(
            [
              executionsOf(targets, names.voicemail),
              executionsOf(targets, names.prompts),
              transcriptionJobsOf(targets, "voxtrail-perm-"),
            ].includes(resource) || !resource.endsWith("*"),
          ).toBe(true);
      }
    }
    const access = FUNCTION_ACCESS[fn];
    for (const pattern of [...access.reads, ...access.writes, ...access.lists]) {
      expect(prefixes.some((p) => pattern.startsWith(p))).toBe(true);
    }
  });

  it("grants the model endpoint, the model and the records object only to the stages that call them", () => {
    const configured = {
      ...targets,
      sonicEndpoint: "Sonic-Dev",
      bedrockModelId: "amazon.nova-lite-v1:0",
      recordsUri: "s3://records-bucket/records.jsonl",
    };
    const holders = (action: string, resource: string) =>
      DEPLOYED_FUNCTIONS.filter((fn) =>
        stagePermissions(fn, configured).some(
          (s) => s.actions.includes(action) && s.resources.includes(resource),
        ),
      );
    for (const action of ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"]) {
      expect(holders(action, "arn:aws:sagemaker:us-east-1:123456789012:endpoint/sonic-dev"), action).toEqual([
        "synthesize",
        "synthesizePrompt",
      ]);
    }
    // The two invoke actions (the API reference asks for InvokeEndpoint, IAM lists the streaming
    // one too) on one endpoint: the stage's, and no other.
    expect(
      stagePermissions("synthesize", configured).filter((s) =>
        s.actions.some((a) => a.startsWith("sagemaker:")),
      ),
    ).toEqual([
      {
        actions: ["sagemaker:InvokeEndpoint", "sagemaker:InvokeEndpointWithResponseStream"],
        resources: ["arn:aws:sagemaker:us-east-1:123456789012:endpoint/sonic-dev"],
      },
    ]);
    expect(
      holders("bedrock:InvokeModel", "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0"),
    ).toEqual(["reason"]);
    expect(holders("s3:GetObject", "arn:aws:s3:::records-bucket/records.jsonl")).toEqual(["reason"]);
    expect(holders("events:PutEvents", busArn)).toEqual(["finalize", "recordFailure"]);
    expect(holders("states:DescribeExecution", executionsOf(targets, names.voicemail))).toEqual(["ingest"]);
    expect(holders("states:DescribeExecution", executionsOf(targets, names.prompts))).toEqual([
      "preparePrompts",
    ]);
    // Reading the version an event named: the voicemail (Ingest) and the prompts manifest (PreparePrompts).
    expect(holders("s3:GetObjectVersion", `arn:aws:s3:::${bucket}/incoming/voicemail/*`)).toEqual(["ingest"]);
    expect(holders("s3:GetObjectVersion", `arn:aws:s3:::${bucket}/incoming/prompts/*`)).toEqual([
      "preparePrompts",
    ]);
  });

  it("keeps the batch and prompts state machines inside their prefixes and their own state machines", () => {
    const scope = { partition: "aws", region: "us-east-1", account: "123456789012", bucket };
    const statements = [
      ...batchStateMachinePermissions({
        ...scope,
        voicemailStateMachineName: names.voicemail,
        batchStateMachineName: names.batch,
        functionArns: { openBatch: "arn:aws:lambda:us-east-1:123456789012:function:openBatch" },
      }),
      ...promptsStateMachinePermissions({
        ...scope,
        promptsStateMachineName: names.prompts,
        functionArns: Object.fromEntries(
          PROMPT_FUNCTIONS.map((fn) => [fn, `arn:aws:lambda:us-east-1:123456789012:function:${fn}`]),
        ) as Parameters<typeof promptsStateMachinePermissions>[0]["functionArns"],
      }),
    ];
    const own = [names.voicemail, names.batch, names.prompts];
    // The batch role may list the voicemails it heads, so a missing one is a 404 (NoSuchKey).
    expect(statements).toContainEqual({
      actions: ["s3:ListBucket"],
      resources: [`arn:aws:s3:::${bucket}`],
      conditions: [{ test: "StringLike", variable: "s3:prefix", values: ["incoming/voicemail/*"] }],
    });
    for (const statement of statements) {
      for (const condition of statement.conditions ?? []) {
        for (const value of condition.values)
          expect(value.startsWith("incoming/voicemail/"), value).toBe(true);
      }
      for (const action of statement.actions) expect(action).not.toContain("*");
      for (const resource of statement.resources) {
        expect(resource).not.toBe("*");
        if (resource.startsWith(`arn:aws:s3:::${bucket}/`)) {
          const key = resource.slice(`arn:aws:s3:::${bucket}/`.length);
          expect(
            ["incoming/batches/", "incoming/voicemail/", "batch-results/", "prompts/"].some((p) =>
              key.startsWith(p),
            ),
            key,
          ).toBe(true);
        } else if (resource.startsWith("arn:aws:states:")) {
          expect(
            own.some((name) => resource.includes(`:${name}`)),
            resource,
          ).toBe(true);
        } else {
          expect(resource.endsWith("*"), resource).toBe(false);
        }
      }
    }
  });
});

describe("Amazon Transcribe: granted only to a stage that configures it", () => {
  const prefix = "voxtrail-perm-";
  const role = "arn:aws:iam::123456789012:role/voxtrail-perm-transcribe-data-access";
  const configured = { ...targets, transcribeJobPrefix: prefix, transcribeDataAccessRoleArn: role };
  const output = `arn:aws:s3:::${bucket}/artifacts/*/transcribe-output.json`;
  const waits = `arn:aws:s3:::${bucket}/transcription-waits/*.json`;
  const jobs = `arn:aws:transcribe:us-east-1:123456789012:transcription-job/${prefix}*`;
  const functionArns = Object.fromEntries(
    STAGE_FUNCTIONS.map((fn) => [fn, `arn:aws:lambda:us-east-1:123456789012:function:${fn}`]),
  ) as Record<StageFunction, string>;
  const scope = { partition: "aws", region: "us-east-1", account: "123456789012", functionArns };

  it("lets Transcribe start jobs writing into a job's transcribe-output.json with the data-access role it passes, look at them, wait for them, and read the output", () => {
    const statements = stagePermissions("transcribe", configured);
    const plain = stagePermissions("transcribe", targets);
    expect(statements.slice(-4)).toEqual([
      START_TRANSCRIPTION_JOB,
      {
        actions: ["iam:PassRole"],
        resources: [role],
        conditions: [
          { test: "StringEquals", variable: "iam:PassedToService", values: ["transcribe.amazonaws.com"] },
        ],
      },
      { actions: ["transcribe:GetTranscriptionJob"], resources: [jobs] },
      { actions: ["states:SendTaskSuccess"], resources: ["*"] },
    ]);
    // In the bucket, one statement per action: the output read back, the task tokens left and
    // read, a probe for a token allowed to learn it is missing.
    // ...and not the audio: Transcribe reads it with the data-access role.
    const audio = `arn:aws:s3:::${bucket}/artifacts/*/normalized.wav`;
    expect(plain[0]?.resources).toContain(audio);
    expect(statements[0]).toEqual({
      actions: ["s3:GetObject"],
      resources: [...(plain[0]?.resources ?? []).filter((resource) => resource !== audio), output, waits],
    });
    expect(statements[1]).toEqual({
      actions: ["s3:PutObject"],
      resources: [...(plain[1]?.resources ?? []), waits],
    });
    expect(statements.find((s) => s.actions.includes("s3:ListBucket"))?.conditions?.[0]?.values).toContain(
      "transcription-waits/*",
    );
    // Transcribe itself writes the output with the data-access role: the function does not.
    expect(
      statements.filter((s) => s.actions.includes("s3:PutObject")).flatMap((s) => s.resources),
    ).not.toContain(output);
  });

  it("lets the data-access role read a job's media and write its output, and nothing else", () => {
    expect(transcribeDataAccessPermissions({ partition: "aws", bucket })).toEqual([
      { actions: ["s3:GetObject"], resources: [`arn:aws:s3:::${bucket}/artifacts/*/normalized.wav`] },
      { actions: ["s3:PutObject"], resources: [output] },
    ]);
  });

  it("gives no other function anything of it, and no function anything without it", () => {
    for (const fn of DEPLOYED_FUNCTIONS) {
      const without = JSON.stringify(stagePermissions(fn, targets));
      expect(without, fn).not.toMatch(/transcribe[:-]/);
      if (fn === "transcribe") continue;
      expect(stagePermissions(fn, configured), fn).toEqual(stagePermissions(fn, targets));
    }
  });

  it("gives the voicemail state machine its functions alone: the Transcribe function looks at the jobs", () => {
    const invoke = { actions: ["lambda:InvokeFunction"], resources: Object.values(functionArns) };
    expect(voicemailStateMachinePermissions(scope)).toEqual([invoke]);
    expect(transcriptionJobsOf(scope, prefix)).toBe(jobs);
  });
});

describe("least privilege: the lineage index compactor's calls are in its permissions, and it uses them all", () => {
  const compactorCalls = () => calls.filter((c) => c.fn === "lineageIndexCompactor");
  let runs: IndexRun[];

  beforeAll(async () => {
    // The summaries the pipeline above wrote are what it indexes; a stage's bucket keeps versions.
    await new S3Client(motoClientConfig()).send(
      new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: "Enabled" } }),
    );
    const store = new S3Store({
      client: recorded(new S3Client(motoClientConfig()), "lineageIndexCompactor"),
      bucket,
    });
    runs = [await updateLineageIndex({ store })];
    // The notes the pipeline's jobs left are deleted once they are indexed.
    const seed = new S3Store({ client: new S3Client(motoClientConfig()), bucket });
    expect(await seed.list(keys.lineageIndexPending)).toEqual([]);
    // A job's summary written again, with its note, as a rerun's Finalize writes them (within the
    // second S3 lists as its time, maybe: the note says it changed): its day gets new files, and
    // its symlinks follow them.
    const [summary] = await seed.list("lineage-summaries/");
    await seed.put(summary as string, await seed.getBytes(summary as string), {
      contentType: "application/json",
    });
    const jobId = (summary as string).slice("lineage-summaries/".length, -".json".length);
    await seed.put(keys.lineageIndexNote(jobId, new Date(), "00000000"), "", { contentType: "text/plain" });
    runs.push(await updateLineageIndex({ store }));
    // Its vacuum once the grace is over (here at once): the first generation is deleted for good.
    await vacuumIndex(store, { keep: 1, graceMs: 0, keepSignedMs: 0 });
  });

  it("indexes the jobs the pipeline finished, then the rerun one, and answers in counts only", () => {
    expect(runs[0]).toMatchObject({ generation: 0, days: 1, unreadableSummaries: 0 });
    expect(runs[0]?.jobsWritten).toBeGreaterThan(0);
    expect(runs[0]?.symlinks).toEqual({ written: 4, unchanged: 0, deleted: 0 });
    expect(runs[1]).toMatchObject({ generation: 1, jobsWritten: 1, jobs: runs[0]?.jobs, days: 1 });
    expect(runs[1]?.symlinks).toEqual({ written: 4, unchanged: 0, deleted: 0 });
    expect(JSON.stringify(runs)).not.toMatch(/lineage|vm-|"[^"]*\//);
  });

  it("makes only calls its policy allows: the summaries read, the index and its symlinks written and deleted for good", () => {
    const policy = lineageIndexCompactorPermissions({ partition: "aws", bucket });
    expect(compactorCalls().filter((c) => !allows(policy, c))).toEqual([]);
    expect(new Set(compactorCalls().map((c) => c.action))).toEqual(
      new Set([
        "s3:ListBucket",
        "s3:GetObject",
        "s3:PutObject",
        "s3:ListBucketVersions",
        "s3:DeleteObjectVersion",
        "s3:DeleteObject",
      ]),
    );
    // Every key it found missing (a symlink not written yet) it may list, so S3 answers 404.
    for (const call of compactorCalls().filter((c) => c.missing)) {
      expect(
        LINEAGE_INDEX_COMPACTOR_ACCESS.lists.some((p) => matches(p, keyOf(call.resource))),
        call.resource,
      ).toBe(true);
    }
  });

  it("uses every object pattern and prefix it is granted", () => {
    const object = (pattern: string) => `arn:aws:s3:::${bucket}/${pattern}`;
    const own = compactorCalls();
    const used = (action: string, pattern: string) =>
      own.some((c) => c.action === action && matches(object(pattern), c.resource));
    const listed = (action: string, pattern: string) =>
      own.some((c) => c.action === action && matches(pattern, c.prefix ?? ""));
    const access = LINEAGE_INDEX_COMPACTOR_ACCESS;
    const unused = [
      ...access.reads.filter((p) => !used("s3:GetObject", p)),
      ...access.writes.filter((p) => !used("s3:PutObject", p)),
      ...access.lists.filter((p) => !listed("s3:ListBucket", p)),
      ...access.listsVersions.filter((p) => !listed("s3:ListBucketVersions", p)),
      ...access.removesVersions.filter((p) => !used("s3:DeleteObjectVersion", p)),
      ...access.deletes.filter((p) => !used("s3:DeleteObject", p)),
    ];
    expect(unused).toEqual([]);
  });
});

describe("least privilege: the lineage signer's calls are in its permissions, and it uses them all", () => {
  const signerCalls = () => calls.filter((c) => c.fn === "lineageSigner");
  let signingKeyArn: string;
  let runs: Array<Awaited<ReturnType<typeof signLineageDigest>>>;

  beforeAll(async () => {
    // The summaries the pipeline above wrote are what it signs, and the index generation the
    // compactor above left is what it names (it runs after the compactor, as it signs after indexing).
    const kms = new KMSClient(motoClientConfig());
    const key = await kms.send(new CreateKeyCommand({ KeySpec: "ECC_NIST_P256", KeyUsage: "SIGN_VERIFY" }));
    signingKeyArn = key.KeyMetadata?.Arn as string;
    const deps = {
      store: new S3Store({ client: recorded(new S3Client(motoClientConfig()), "lineageSigner"), bucket }),
      signer: new KmsSigner({ keyId: signingKeyArn, client: recorded(kms, "lineageSigner") }),
    };
    // The next hour's run, with no job finished since, reads the digest and writes nothing.
    runs = [await signLineageDigest(deps), await signLineageDigest(deps)];
  });

  it("signs the jobs the pipeline finished, then finds nothing new", () => {
    expect(runs[0]?.digest).toMatch(/^lineage-digests\/.+\.json$/);
    expect(runs[0]?.jobs).toBeGreaterThan(0);
    expect(runs[1]).toEqual({ digest: null, jobs: 0 });
  });

  it("names the index generation current as it signs", async () => {
    const seed = new S3Store({ client: new S3Client(motoClientConfig()), bucket });
    const digest = JSON.parse((await seed.getBytes(runs[0]?.digest as string)).toString("utf8"));
    expect(digest.index).toMatchObject({ manifestKey: (await latestManifest(seed))?.key });
  });

  it("makes only calls its policy allows: the bucket's summaries and digests, the index's manifests, and Sign and GetPublicKey on its key", () => {
    const policy = lineageSignerPermissions({ partition: "aws", bucket, signingKeyArn });
    expect(signerCalls().filter((c) => !allows(policy, c))).toEqual([]);
    expect(new Set(signerCalls().map((c) => c.action))).toEqual(
      new Set(["s3:ListBucket", "s3:GetObject", "s3:PutObject", "kms:GetPublicKey", "kms:Sign"]),
    );
  });

  it("uses every object pattern and prefix it is granted", () => {
    const object = (pattern: string) => `arn:aws:s3:::${bucket}/${pattern}`;
    const own = signerCalls();
    const unused = [
      ...LINEAGE_SIGNER_ACCESS.reads.filter(
        (p) => !own.some((c) => c.action === "s3:GetObject" && matches(object(p), c.resource)),
      ),
      ...LINEAGE_SIGNER_ACCESS.writes.filter(
        (p) => !own.some((c) => c.action === "s3:PutObject" && matches(object(p), c.resource)),
      ),
      ...LINEAGE_SIGNER_ACCESS.lists.filter(
        (p) => !own.some((c) => c.action === "s3:ListBucket" && matches(p, c.prefix ?? "")),
      ),
    ];
    expect(unused).toEqual([]);
  });
});
