/**
 * One Lambda execution environment of the rehearsal: a child process started by
 * function-host.ts with the function's deployed environment, in a task directory holding the
 * function's bundle and what sst puts beside it (`resource.enc`); built to plain JavaScript there
 * (function-bundle.ts). It imports the handler module once, as the Lambda runtime does, and
 * answers invocations sent over IPC one at a time.
 *
 * argv[2] is JSON: the handler's module path and export, and the hosts whose HTTPS traffic the
 * rehearsal redirects to local stand-ins (a network-level redirect, like a hosts file: the code
 * and its configured URL are unchanged, so the boundary it records is the configured host).
 */
import { randomUUID } from "node:crypto";

interface Setup {
  modulePath: string;
  exportName: string;
  redirects: Record<string, string>;
}

interface Invocation {
  id: number;
  event: unknown;
  deadline: number;
  functionName: string;
  functionArn: string;
  memoryMb: number;
}

type Handler = (event: unknown, context: Record<string, unknown>) => Promise<unknown>;

const setup = JSON.parse(process.argv[2] ?? "{}") as Setup;

if (Object.keys(setup.redirects).length > 0) {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const standIn = setup.redirects[url.host];
    if (!standIn) return realFetch(input, init);
    const redirected = new URL(`${url.pathname}${url.search}`, standIn);
    return input instanceof Request
      ? realFetch(new Request(redirected, input), init)
      : realFetch(redirected, init);
  };
}

const handler = (await import(setup.modulePath))[setup.exportName] as Handler;

process.on("message", async (message: Invocation) => {
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: message.functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: message.functionArn,
    memoryLimitInMB: String(message.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${message.functionName}`,
    logStreamName: "rehearsal",
    getRemainingTimeInMillis: () => Math.max(0, message.deadline - Date.now()),
  };
  try {
    const result = await handler(message.event, context);
    process.send?.({ id: message.id, ok: true, result: result ?? null });
  } catch (error) {
    process.send?.({
      id: message.id,
      ok: false,
      errorType: error instanceof Error ? error.name : "Error",
      errorMessage: error instanceof Error ? error.message : String(error),
    });
  }
});
process.send?.({ ready: true });
