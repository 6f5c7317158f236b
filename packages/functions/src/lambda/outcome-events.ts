import { FUNCTION_ENVIRONMENT } from "@voxtrail/workflow";
import type { EventBridgePublisher } from "../events/eventbridge-publisher";
import { requiredEnv } from "./lambda-dependencies";

/**
 * The stage's outcome bus, from `VOXTRAIL_EVENT_BUS`: where Finalize and the failure recorder
 * announce a job's end.
 *
 * @example
 * const events = await outcomeEvents(process.env);
 */
export async function outcomeEvents(env: NodeJS.ProcessEnv): Promise<EventBridgePublisher> {
  const busName = requiredEnv(env, FUNCTION_ENVIRONMENT.eventBus);
  // Loaded here, on the first invocation, not when the function's module is imported.
  const [{ EventBridgeClient }, { EventBridgePublisher }] = await Promise.all([
    import("@aws-sdk/client-eventbridge"),
    import("../events/eventbridge-publisher"),
  ]);
  return new EventBridgePublisher({
    client: new EventBridgeClient({}),
    busName,
  });
}
