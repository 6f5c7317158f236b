import {
  CreateStateMachineCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from "@aws-sdk/client-sfn";
import { PutParameterCommand, SSMClient } from "@aws-sdk/client-ssm";
import {
  type JobResult,
  LocalRuntime,
  type PromptsJobResult,
  PromptsRuntime,
  type SqsDelivery,
  SqsEventSource,
} from "@voxtrail/local";
import { S3Store } from "@voxtrail/storage";
import {
  buildPromptsDefinition,
  buildVoicemailDefinition,
  ObjectCreatedEvent,
  objectKeyOf,
  PROMPT_FUNCTIONS,
  promptsRulePattern,
  STAGE_FUNCTIONS,
  type StageResources,
  stageParameterName,
  voicemailRulePattern,
} from "@voxtrail/workflow";
import { motoClientConfig } from "../setup/aws";
import { asS3Sends, createS3EventQueue, type S3EventQueue } from "./s3-event-queue";
import { SIMULATED_TRANSCRIBER } from "./simulated-transcriber";

/** What the stand-in does with the execution it started for an event. */
export type StandInAction =
  /** Run the event through the workflow's handlers against the bucket, as the Lambdas would. */
  | "run"
  /** Stop the execution (ABORTED) before any handler runs: no report is ever written. */
  | "stop"
  /** Leave the execution running and write nothing. */
  | "leave";

/** Which workflow the stand-in's stage runs the rule's events through. */
export type StandInWorkflow = "voicemail" | "prompts";

/** One event the stand-in handled: the event, the execution it started, and what it did. */
export interface StandInDelivery {
  /** The event as the execution received it: moto's, its key encoded as S3 sends it (`asS3Sends`). */
  event: unknown;
  executionArn: string;
  action: StandInAction;
  result?: JobResult | PromptsJobResult;
}

/** What runs an event as the stage's Lambdas would: the local runtime of the stand-in's workflow. */
interface EventRunner {
  runEvent(event: unknown): Promise<JobResult | PromptsJobResult>;
  close(): Promise<void>;
}

/**
 * A deployed stage on moto_server, and a stand-in for the parts moto cannot run. moto has the
 * stage's SSM parameter, its versioned bucket with EventBridge notifications, the rule with the
 * workflow's pattern (voicemail, or prompts), and state machines with the builders' definitions
 * (fake Lambda ARNs: moto never runs them, their executions stay RUNNING). The rule targets an SQS
 * queue instead of the state machine, and the stand-in consumes it: for each event (its key
 * re-encoded as S3 sends it, where moto sends it raw: `asS3Sends`) it calls StartExecution on the
 * workflow's state machine with the event as input (what the rule's Step Functions target does),
 * then, by the object's key, runs the event through the workflow's local runtime (`LocalRuntime`
 * or `PromptsRuntime`) against the moto bucket (what the Lambdas do), or stops the execution, or
 * leaves it running. Its voicemails' transcriber is simulated: what these
 * tests follow is the stage's plumbing, not what was heard.
 */
export class StageStandIn {
  /** Every message the stand-in received, in order. */
  readonly deliveries: SqsDelivery<StandInDelivery>[] = [];
  readonly #stop = new AbortController();
  #consuming: Promise<void> | undefined;

  private constructor(
    readonly stage: string,
    readonly resources: StageResources,
    readonly plumbing: S3EventQueue,
    private readonly runtime: EventRunner,
    private readonly workflow: StandInWorkflow,
    private readonly actionFor: (key: string) => StandInAction,
  ) {}

  /** Creates the stage on moto, with the rule of `workflow` (voicemail by default), and starts consuming its queue. */
  static async start(
    stage: string,
    actionFor: (key: string) => StandInAction,
    workflow: StandInWorkflow = "voicemail",
  ): Promise<StageStandIn> {
    const plumbing = await createS3EventQueue(
      workflow === "prompts" ? promptsRulePattern : voicemailRulePattern,
    );
    const sfn = new SFNClient(motoClientConfig());
    const functionArns = <F extends string>(functions: readonly F[]) =>
      Object.fromEntries(
        functions.map((fn) => [fn, `arn:aws:lambda:us-east-1:123456789012:function:${stage}-${fn}`]),
      ) as Record<F, string>;
    const createStateMachine = async (name: string, definition: unknown) => {
      const { stateMachineArn } = await sfn.send(
        new CreateStateMachineCommand({
          name: `${stage}-${name}`,
          definition: JSON.stringify(definition),
          roleArn: `arn:aws:iam::123456789012:role/voxtrail-${name}`,
        }),
      );
      return stateMachineArn as string;
    };
    const resources: StageResources = {
      stage,
      region: "us-east-1",
      bucket: plumbing.bucket,
      voicemailStateMachineArn: await createStateMachine(
        "voicemail",
        buildVoicemailDefinition({ functionArns: functionArns(STAGE_FUNCTIONS) }),
      ),
      ...(workflow === "prompts"
        ? {
            promptsStateMachineArn: await createStateMachine(
              "prompts",
              buildPromptsDefinition({ functionArns: functionArns(PROMPT_FUNCTIONS), maxConcurrency: 2 }),
            ),
          }
        : {}),
    };
    await new SSMClient(motoClientConfig()).send(
      new PutParameterCommand({
        Name: stageParameterName(stage),
        Type: "String",
        Value: JSON.stringify(resources),
      }),
    );
    const store = new S3Store({ client: plumbing.s3, bucket: plumbing.bucket });
    const runtime =
      workflow === "prompts"
        ? await PromptsRuntime.start({ store, retryIntervalMs: 10 })
        : await LocalRuntime.start({ store, retryIntervalMs: 10, providers: SIMULATED_TRANSCRIBER });
    const standIn = new StageStandIn(stage, resources, plumbing, runtime, workflow, actionFor);
    standIn.#consume(sfn);
    return standIn;
  }

  /**
   * What the stand-in did for the upload under `key`, once it has finished with its event. The
   * CLI may see the outcome first (the report is written, or the execution stopped, before the
   * stand-in's delivery ends), so this waits for the delivery, up to `timeoutMs`.
   */
  async handled(key: string, timeoutMs = 30_000): Promise<StandInDelivery | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const delivery of this.deliveries) {
        if (delivery.type !== "handled") continue;
        if (objectKeyOf(ObjectCreatedEvent.parse(delivery.result.event)) === key) return delivery.result;
      }
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops consuming, then removes the queue and rule and stops the runtime. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#consuming;
    await this.runtime.close();
    await this.plumbing.remove();
  }

  #consume(sfn: SFNClient): void {
    const source = new SqsEventSource<StandInDelivery>({
      client: this.plumbing.sqs,
      queueUrl: this.plumbing.queueUrl,
      waitTimeSeconds: 1,
      handle: async (received) => {
        const event = asS3Sends(received);
        const stateMachineArn =
          this.workflow === "prompts"
            ? this.resources.promptsStateMachineArn
            : this.resources.voicemailStateMachineArn;
        const { executionArn } = await sfn.send(
          new StartExecutionCommand({ stateMachineArn, input: JSON.stringify(event) }),
        );
        const action = this.actionFor(objectKeyOf(ObjectCreatedEvent.parse(event)));
        const delivery: StandInDelivery = { event, executionArn: executionArn as string, action };
        if (action === "stop") await sfn.send(new StopExecutionCommand({ executionArn }));
        if (action === "run") delivery.result = await this.runtime.runEvent(event);
        return delivery;
      },
    });
    this.#consuming = source.run(this.#stop.signal, (delivery) => {
      this.deliveries.push(delivery);
    });
  }
}
