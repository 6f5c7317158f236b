import { CreateEventBusCommand, EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { encodeMuLaw, writeWav } from "@voxtrail/audio";
import { LOCAL_BOUNDARY, type Processor } from "@voxtrail/core";
import { createStageHandlers, EventBridgePublisher, type StageDependencies } from "@voxtrail/functions";
import { LocalReasoner } from "@voxtrail/providers";
import { S3Store } from "@voxtrail/storage";
import { STAGE_FUNCTIONS, type StageFunction } from "@voxtrail/workflow";
import { beforeAll, describe, expect, it } from "vitest";
import { context, testDependencies } from "../../packages/functions/test/stage-dependencies";
import { type IamStatement, STAGE_ACCESS, stagePermissions } from "../../stacks/permissions";
import { motoClientConfig } from "../setup/aws";

const bucket = `voxtrail-permissions-${Date.now()}`;
const busName = `voxtrail-permissions-${Date.now()}`;
const busArn = `arn:aws:events:us-east-1:123456789012:event-bus/${busName}`;
const targets = {
  partition: "aws",
  region: "us-east-1",
  account: "123456789012",
  bucket,
  outcomeBusArn: busArn,
};

/** One AWS call a handler made, as IAM sees it: the action, the resource, the S3 list prefix. */
interface Call {
  fn: StageFunction;
  command: string;
  action: string;
  resource: string;
  prefix?: string;
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
    case "PutEventsCommand":
      return { action: "events:PutEvents", resource: busArn };
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

/** An SDK client whose commands are recorded under the stage function that sent them. */
function recorded<C extends S3Client | EventBridgeClient>(client: C, fn: StageFunction): C {
  (client as unknown as Recordable).middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "unknown";
      calls.push({ fn, command, ...authorization(command, args.input as Record<string, string>) });
      return next(args);
    },
    { step: "initialize", name: "recordIamCalls" },
  );
  return client;
}

const processor: Processor = { provider: "test", model: "test", version: "0", boundary: LOCAL_BOUNDARY };

/** Dependencies of one stage function over moto's S3 and EventBridge, with fixed providers. */
async function stageDependencies(fn: StageFunction): Promise<StageDependencies> {
  const { deps } = await testDependencies({
    store: new S3Store({ client: recorded(new S3Client(motoClientConfig()), fn), bucket }),
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
    synthesizer: {
      processor,
      synthesize: () => ({
        async *[Symbol.asyncIterator]() {
          yield new Uint8Array(3200);
        },
        timings: () => [],
      }),
    },
  });
  return deps;
}

const execution = {
  id: "arn:aws:states:us-east-1:123456789012:execution:vm:1",
  startTime: "2026-01-01T00:00:01.500Z",
};
const objectCreated = (key: string) => ({
  source: "aws.s3",
  "detail-type": "Object Created",
  time: "2026-01-01T00:00:01.000Z",
  detail: { bucket: { name: bucket }, object: { key, etag: "abc" } },
});

describe("least privilege: every AWS call a handler makes is in its stage's permissions", () => {
  beforeAll(async () => {
    await new S3Client(motoClientConfig()).send(new CreateBucketCommand({ Bucket: bucket }));
    await new EventBridgeClient(motoClientConfig()).send(new CreateEventBusCommand({ Name: busName }));
    const handlers = Object.fromEntries(
      await Promise.all(
        STAGE_FUNCTIONS.map(
          async (fn) => [fn, createStageHandlers(await stageDependencies(fn))[fn]] as const,
        ),
      ),
    ) as Record<StageFunction, ReturnType<typeof createStageHandlers>[StageFunction]>;
    const seed = new S3Store({ client: new S3Client(motoClientConfig()), bucket });
    const samples = new Int16Array(8000).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)),
    );
    const tone = writeWav({ encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 }, encodeMuLaw(samples));
    await seed.put("incoming/voicemail/a.wav", tone, { contentType: "audio/wav" });
    await seed.put("incoming/voicemail/notes.txt", "not audio", { contentType: "text/plain" });

    // One job through every stage, the way the state machine passes the state on.
    const state = (await handlers.ingest(
      { event: objectCreated("incoming/voicemail/a.wav"), execution },
      context,
    )) as Record<string, unknown>;
    state.transcribe = await handlers.transcribe(state, context);
    state.reason = await handlers.reason(state, context);
    state.synthesize = await handlers.synthesize(state, context);
    await handlers.finalize(state, context);
    // And one that fails in Ingest and is recorded.
    const failing = objectCreated("incoming/voicemail/notes.txt");
    await expect(handlers.ingest({ event: failing, execution }, context)).rejects.toMatchObject({
      name: "InvalidAudio",
    });
    await handlers.recordFailure(
      { stage: "Ingest", state: { ...failing, failure: { Error: "InvalidAudio", Cause: "{}" } }, execution },
      context,
    );
  }, 60_000);

  it("recorded calls from every stage function", () => {
    expect(new Set(calls.map((c) => c.fn))).toEqual(new Set(STAGE_FUNCTIONS));
  });

  it.each(STAGE_FUNCTIONS)("%s's calls are all allowed by its policy", (fn) => {
    const policy = stagePermissions(fn, targets);
    const denied = calls.filter((c) => c.fn === fn && !allows(policy, c));
    expect(denied).toEqual([]);
  });

  it.each(STAGE_FUNCTIONS)("%s uses every object pattern it is granted", (fn) => {
    const own = calls.filter((c) => c.fn === fn);
    const object = (pattern: string) => `arn:aws:s3:::${bucket}/${pattern}`;
    const unused = [
      ...STAGE_ACCESS[fn].reads.filter(
        (p) => !own.some((c) => c.action === "s3:GetObject" && matches(object(p), c.resource)),
      ),
      ...STAGE_ACCESS[fn].writes.filter(
        (p) => !own.some((c) => c.action === "s3:PutObject" && matches(object(p), c.resource)),
      ),
    ];
    expect(unused).toEqual([]);
  });

  it.each(STAGE_FUNCTIONS)("%s is not granted what only other stages do", (fn) => {
    const others = calls.filter((c) => c.fn !== fn && c.action !== "s3:ListBucket");
    const allowed = others.filter((c) => allows(stagePermissions(fn, targets), c));
    // Whatever another stage does and this one may also do, this one does too.
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
    arn.replace(/\/(artifacts|lineage)\/[^/]+\//, "/$1/JOB/").replace(/\/[^/]+\.json$/, "/X.json");
  return file(a) === file(b);
}

describe("nothing is wildcarded beyond its prefixes", () => {
  const prefixes = ["incoming/voicemail/", "artifacts/", "lineage/", "lineage-summaries/", "reports/"];

  it.each(STAGE_FUNCTIONS)("%s names actions and keys of the layout, never a bare wildcard", (fn) => {
    const configured = {
      ...targets,
      sonicEndpoint: "Sonic-Dev",
      bedrockModelId: "amazon.nova-lite-v1:0",
      recordsUri: "s3://records-bucket/records.jsonl",
    };
    for (const statement of stagePermissions(fn, configured)) {
      for (const action of statement.actions) expect(action).not.toContain("*");
      for (const resource of statement.resources) {
        expect(resource).not.toBe("*");
        const key = resource.startsWith(`arn:aws:s3:::${bucket}/`)
          ? resource.slice(`arn:aws:s3:::${bucket}/`.length)
          : undefined;
        if (key !== undefined)
          expect(prefixes.some((p) => key.startsWith(p) && key.length > p.length)).toBe(true);
        else expect(resource.endsWith("*")).toBe(false);
      }
    }
    const access = STAGE_ACCESS[fn];
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
      STAGE_FUNCTIONS.filter((fn) =>
        stagePermissions(fn, configured).some(
          (s) => s.actions.includes(action) && s.resources.includes(resource),
        ),
      );
    expect(
      holders(
        "sagemaker:InvokeEndpointWithResponseStream",
        "arn:aws:sagemaker:us-east-1:123456789012:endpoint/sonic-dev",
      ),
    ).toEqual(["synthesize"]);
    expect(
      holders("bedrock:InvokeModel", "arn:aws:bedrock:us-east-1::foundation-model/amazon.nova-lite-v1:0"),
    ).toEqual(["reason"]);
    expect(holders("s3:GetObject", "arn:aws:s3:::records-bucket/records.jsonl")).toEqual(["reason"]);
    expect(holders("events:PutEvents", busArn)).toEqual(["finalize", "recordFailure"]);
  });
});
