import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { FUNCTION_ENVIRONMENT } from "@voxtrail/workflow";
import { EventBridgePublisher } from "../events/eventbridge-publisher";
import { requiredEnv } from "./lambda-dependencies";

/**
 * The stage's outcome bus, from `VOXTRAIL_EVENT_BUS`: where Finalize and the failure recorder
 * announce a job's end.
 *
 * @example
 * const events = outcomeEvents(process.env);
 */
export function outcomeEvents(env: NodeJS.ProcessEnv): EventBridgePublisher {
  return new EventBridgePublisher({
    client: new EventBridgeClient({}),
    busName: requiredEnv(env, FUNCTION_ENVIRONMENT.eventBus),
  });
}
