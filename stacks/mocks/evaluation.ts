import type { RpcCall } from "./cli-rpc-stub";

/** The account and region the mocks pretend to deploy into. */
export const MOCK_ACCOUNT = "123456789012";
export const MOCK_REGION = "us-east-1";

/** One resource the program registered: its type token, logical name and resolved inputs. */
export interface RegisteredResource {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

/** The ARN the mocks give a resource of `type` named `name` (e.g. a Lambda function's). */
export function mockArn(type: string, name: string): string {
  const service = type.split(":")[1]?.split("/")[0] ?? "mock";
  const kind = type.split(":")[2] ?? "Resource";
  if (service === "s3") return `arn:aws:s3:::${name}`;
  if (service === "lambda") return `arn:aws:lambda:${MOCK_REGION}:${MOCK_ACCOUNT}:function:${name}`;
  if (service === "sfn") return `arn:aws:states:${MOCK_REGION}:${MOCK_ACCOUNT}:stateMachine:${name}`;
  if (service === "iam") return `arn:aws:iam::${MOCK_ACCOUNT}:${kind.toLowerCase()}/${name}`;
  if (kind === "EventBus") return `arn:aws:events:${MOCK_REGION}:${MOCK_ACCOUNT}:event-bus/${name}`;
  if (kind === "EventRule") return `arn:aws:events:${MOCK_REGION}:${MOCK_ACCOUNT}:rule/${name}`;
  if (kind === "LogGroup") return `arn:aws:logs:${MOCK_REGION}:${MOCK_ACCOUNT}:log-group:${name}`;
  return `arn:aws:${service}:${MOCK_REGION}:${MOCK_ACCOUNT}:${kind.toLowerCase()}/${name}`;
}

/** What an evaluation of the stacks produced. */
export interface Evaluation {
  resources: RegisteredResource[];
  rpc: RpcCall[];
  outputs: unknown;
}
