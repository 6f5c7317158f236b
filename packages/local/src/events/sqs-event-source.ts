import {
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { VoxtrailError } from "@voxtrail/core";

/** Options of {@link SqsEventSource}. */
export interface SqsEventSourceOptions<T> {
  /** Client to receive and delete with (region, endpoint, credentials are its concern). */
  client: SQSClient;
  /** The queue an EventBridge rule targets: each message body is one event, as JSON. */
  queueUrl: string;
  /** Runs one event to its end, e.g. `(event) => runtime.runEvent(event)`. */
  handle: (event: unknown) => Promise<T>;
  /** Messages received, and handled at once, per poll (1 to 10; default 1). */
  batchSize?: number;
  /** Long-poll wait per receive, in seconds (0 to 20; default 20). */
  waitTimeSeconds?: number;
  /**
   * How long a received message stays hidden from other consumers, in seconds: longer than a job
   * takes, or the message is delivered again while its job runs (default 900).
   */
  visibilityTimeoutSeconds?: number;
}

/**
 * What became of one received message.
 * - `handled`: the handler ran the event to its end (whatever the job's outcome); deleted.
 * - `rejected`: the message can never be handled: its body is not a JSON object, or the handler
 *   refused the event with a named error that no retry can help (`retryable: false`, e.g.
 *   `InvalidInput` for an event that is not S3 "Object Created"). Reported and deleted, since
 *   delivering it again cannot change it. The reason names the problem, never the body.
 * - `failed`: the handler threw anything else (the job did not end: a store or network fault);
 *   left on the queue, so it is delivered again once its visibility timeout ends (and goes to the
 *   queue's dead-letter queue, if it has one, after its redrive limit).
 */
export type SqsDelivery<T> =
  | { type: "handled"; messageId: string; result: T }
  | { type: "rejected"; messageId: string; reason: string }
  | { type: "failed"; messageId: string; error: unknown };

/**
 * Consumes the SQS queue an EventBridge rule targets and hands each event to a handler: how the
 * local runtime runs the events of a real (or moto) S3 bucket and event bus. A message is deleted
 * once its job has ended or when it can never be handled, and left for redelivery when handling
 * it threw (see {@link SqsDelivery}).
 *
 * @example
 * const source = new SqsEventSource({ client: new SQSClient({}), queueUrl, handle: (event) => runtime.runEvent(event) });
 * const stop = new AbortController();
 * await source.run(stop.signal, (delivery) => console.log(delivery.type, delivery.messageId));
 */
export class SqsEventSource<T> {
  readonly #options: SqsEventSourceOptions<T>;

  constructor(options: SqsEventSourceOptions<T>) {
    this.#options = options;
  }

  /**
   * Long-polls and handles messages until `signal` aborts. A receive in progress is cancelled; jobs
   * in progress run to their end (and their messages are deleted) before it resolves.
   */
  async run(signal: AbortSignal, onDelivery: (delivery: SqsDelivery<T>) => void): Promise<void> {
    while (!signal.aborted) {
      let deliveries: SqsDelivery<T>[];
      try {
        deliveries = await this.poll(signal);
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      }
      for (const delivery of deliveries) onDelivery(delivery);
    }
  }

  /**
   * Receives one batch (waiting up to the long-poll time for it) and handles its messages
   * concurrently; resolves with what became of each, in the order received.
   */
  async poll(signal?: AbortSignal): Promise<SqsDelivery<T>[]> {
    const { client, queueUrl } = this.#options;
    const received = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: this.#options.batchSize ?? 1,
        WaitTimeSeconds: this.#options.waitTimeSeconds ?? 20,
        VisibilityTimeout: this.#options.visibilityTimeoutSeconds ?? 900,
      }),
      signal ? { abortSignal: signal } : {},
    );
    return Promise.all((received.Messages ?? []).map((message) => this.#deliver(message)));
  }

  async #deliver(message: Message): Promise<SqsDelivery<T>> {
    const messageId = message.MessageId ?? "(no message id)";
    const event = parseEvent(message.Body);
    if (typeof event === "string") {
      await this.#delete(message);
      return { type: "rejected", messageId, reason: event };
    }
    let result: T;
    try {
      result = await this.#options.handle(event);
    } catch (error) {
      if (!(error instanceof VoxtrailError) || error.retryable) return { type: "failed", messageId, error };
      await this.#delete(message);
      return { type: "rejected", messageId, reason: `${error.name}: ${error.message}` };
    }
    await this.#delete(message);
    return { type: "handled", messageId, result };
  }

  async #delete(message: Message): Promise<void> {
    await this.#options.client.send(
      new DeleteMessageCommand({ QueueUrl: this.#options.queueUrl, ReceiptHandle: message.ReceiptHandle }),
    );
  }
}

/** The event a body holds, or why it holds none (without quoting the body). */
function parseEvent(body: string | undefined): Record<string, unknown> | string {
  if (body === undefined || body === "") return "the message has no body";
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return `the message body (${Buffer.byteLength(body)} bytes) is not JSON`;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return "the message body is JSON but not an event object";
  }
  return parsed as Record<string, unknown>;
}
