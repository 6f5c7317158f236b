import { AsyncLocalStorage } from "node:async_hooks";
import type { SdkCall } from "@voxtrail/core";

/** Where the calls of the stage attempt running in this async context are collected. */
const collector = new AsyncLocalStorage<SdkCall[]>();

/** The name the observer has in a client's middleware stack (added once, whatever the callers). */
const MIDDLEWARE_NAME = "voxtrailSdkCallObserver";

/** What the SDK's retry middleware leaves on a command's output, or on the error it finally throws. */
interface RetryMetadata {
  $metadata?: { attempts?: number; totalRetryDelay?: number };
}

type Handler = (args: unknown) => Promise<{ output?: RetryMetadata }>;
type Middleware = (next: Handler, context: { commandName?: string }) => Handler;
type AddMiddleware = (
  middleware: Middleware,
  options: { step: "initialize"; name: string; override: true },
) => void;

/** An AWS SDK v3 client: anything with a middleware stack. */
export interface SdkClient {
  middlewareStack: { add: (...args: never[]) => void };
}

/**
 * Makes `client` report every command it completes while {@link collectSdkCalls} is collecting: the
 * command, how many HTTP attempts the SDK's retry strategy made (`$metadata.attempts`), the delay it
 * waited between them (`$metadata.totalRetryDelay`) and whether the call finally succeeded. The
 * observer sits in the `initialize` step, outside the retry middleware, so it sees one call however
 * many attempts it took. Idempotent: observing a client twice observes it once.
 *
 * @example
 * const client = new SageMakerRuntimeClient({});
 * observeSdkCalls(client, "sagemaker-runtime");
 * const calls: SdkCall[] = [];
 * await collectSdkCalls(calls, () => client.send(command));
 * calls; // [{ service: "sagemaker-runtime", command: "InvokeEndpointWithResponseStreamCommand", attempts: 2, totalRetryDelayMs: 95, outcome: "succeeded" }]
 */
export function observeSdkCalls(client: SdkClient, service: string): void {
  const observer: Middleware = (next, context) => async (args) => {
    const record = (outcome: SdkCall["outcome"], bearer: RetryMetadata | undefined) =>
      collector.getStore()?.push({
        service,
        command: context.commandName ?? "unknown",
        attempts: bearer?.$metadata?.attempts ?? 1,
        totalRetryDelayMs: bearer?.$metadata?.totalRetryDelay ?? 0,
        outcome,
      });
    try {
      const result = await next(args);
      record("succeeded", result.output);
      return result;
    } catch (error) {
      record("failed", typeof error === "object" && error !== null ? (error as RetryMetadata) : undefined);
      throw error;
    }
  };
  (client.middlewareStack.add as unknown as AddMiddleware)(observer, {
    step: "initialize",
    name: MIDDLEWARE_NAME,
    override: true,
  });
}

/**
 * Runs `run`, appending to `calls` every call an observed client ({@link observeSdkCalls}) completes
 * within it: in its async context, so concurrent stage attempts in one process keep their own calls.
 */
export function collectSdkCalls<T>(calls: SdkCall[], run: () => Promise<T>): Promise<T> {
  return collector.run(calls, run);
}
