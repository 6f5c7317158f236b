import { type ChildProcess, fork } from "node:child_process";
import { createCipheriv } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type HandlerBundles, type TaskRootBundle, writeTaskRootBundle } from "./function-bundle";
import type { FunctionPlan } from "./stage-plan";

/** Execution environments one function may have at once (Lambda scales out per concurrent invocation). */
const MAX_ENVIRONMENTS = 4;

/** How a function's environments reach AWS and third parties during the rehearsal. */
export interface FunctionNetwork {
  /** The proxy every AWS SDK client is pointed at (`AWS_ENDPOINT_URL`). */
  awsEndpoint: string;
  region: string;
  /** The credentials of the function's role session. */
  accessKeyId: string;
  /** HTTPS hosts redirected to local stand-ins (`api.cartesia.ai` -> `http://127.0.0.1:...`). */
  redirects: Record<string, string>;
}

/** An error as the Lambda runtime reports it: `name` is the `errorType` Step Functions matches. */
export class FunctionError extends Error {
  constructor(errorType: string, errorMessage: string) {
    super(errorMessage);
    this.name = errorType;
  }
}

interface Environment {
  child: ChildProcess;
  busy: boolean;
  ready: Promise<void>;
}

/**
 * Hosts one deployed function as Lambda would: each execution environment is a child process
 * (function-process.ts) importing the function's bundle, built as sst builds it (once for every
 * function of the stage, function-bundle.ts) and written into the task root, with exactly the environment variables the stacks give the function, plus
 * what the Lambda runtime sets (region, function name, the role session's credentials, the task
 * root) and `AWS_ENDPOINT_URL` pointing the SDK at the rehearsal's proxy. Its working directory
 * is a task root holding `resource.enc`, encrypted with the function's `SST_KEY` as sst's build
 * does, so linked secrets are read exactly as deployed. Environments are reused while warm and
 * started when every warm one is busy; an invocation past the function's timeout kills its
 * environment and fails with `Sandbox.Timedout`.
 *
 * @example
 * const bundles = buildHandlerBundles(plan.functions.map((fn) => fn.handler));
 * const host = new FunctionHost(plan.functions[0], network, bundles, (line) => logs.push(line));
 * const output = await host.invoke({ event, execution });
 */
export class FunctionHost {
  readonly #environments: Environment[] = [];
  readonly #taskRoot: string;
  /** The function's bundle in its task root, written once, before its first environment starts. */
  readonly #bundle: Promise<TaskRootBundle>;
  #nextId = 0;

  constructor(
    readonly plan: FunctionPlan,
    private readonly network: FunctionNetwork,
    /** The stage's functions' bundles ({@link buildHandlerBundles}), this function's among them. */
    bundles: Promise<HandlerBundles>,
    private readonly onOutput: (line: string) => void = () => undefined,
  ) {
    this.#taskRoot = mkdtempSync(join(tmpdir(), `voxtrail-rehearsal-${plan.component}-`));
    writeFileSync(join(this.#taskRoot, "resource.enc"), encryptedLinks(plan));
    this.#bundle = bundles.then((built) => writeTaskRootBundle(built, plan.handler, this.#taskRoot));
    // A build that fails is reported by the first invocation, not as an unhandled rejection.
    this.#bundle.catch(() => undefined);
  }

  /** Invokes the function with `event`; resolves its output or rejects with a {@link FunctionError}. */
  async invoke(event: unknown): Promise<unknown> {
    const bundle = await this.#bundle;
    const environment = this.#environments.find((e) => !e.busy) ?? this.#start(bundle);
    environment.busy = true;
    try {
      await environment.ready;
      return await this.#send(environment, event);
    } finally {
      environment.busy = false;
    }
  }

  /** Ends every environment, so the next invocation starts cold (nothing cached from earlier ones). */
  async recycle(): Promise<void> {
    const environments = this.#environments.splice(0);
    await Promise.all(environments.map((environment) => stop(environment.child)));
  }

  /** Ends every environment and removes the task root. */
  async close(): Promise<void> {
    await Promise.all(this.#environments.map((environment) => stop(environment.child)));
    this.#environments.length = 0;
    rmSync(this.#taskRoot, { recursive: true, force: true });
  }

  #start(bundle: TaskRootBundle): Environment {
    if (this.#environments.length >= MAX_ENVIRONMENTS) {
      throw new FunctionError("Lambda.TooManyRequestsException", `${this.plan.component}: concurrency limit`);
    }
    const exportName = this.plan.handler.slice(this.plan.handler.lastIndexOf(".") + 1);
    const child = fork(
      bundle.runtime,
      [JSON.stringify({ modulePath: bundle.handler, exportName, redirects: this.network.redirects })],
      {
        cwd: this.#taskRoot,
        env: this.#variables(),
        execArgv: [],
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      },
    );
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding("utf8");
      stream?.on("data", (text: string) => {
        for (const line of text.split("\n")) if (line.trim()) this.onOutput(line);
      });
    }
    const ready = new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve());
      child.once("exit", (code) =>
        reject(new FunctionError("Runtime.ExitError", `init exited with ${code}`)),
      );
    });
    ready.catch(() => undefined);
    const environment: Environment = { child, busy: false, ready };
    this.#environments.push(environment);
    child.once("exit", () => {
      const index = this.#environments.indexOf(environment);
      if (index >= 0) this.#environments.splice(index, 1);
    });
    return environment;
  }

  #variables(): Record<string, string> {
    return {
      ...this.plan.environment,
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      TZ: ":UTC",
      LAMBDA_TASK_ROOT: this.#taskRoot,
      AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
      AWS_LAMBDA_FUNCTION_NAME: this.plan.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(this.plan.memoryMb),
      AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
      AWS_REGION: this.network.region,
      AWS_DEFAULT_REGION: this.network.region,
      AWS_ACCESS_KEY_ID: this.network.accessKeyId,
      AWS_SECRET_ACCESS_KEY: "rehearsal-secret",
      AWS_SESSION_TOKEN: "rehearsal-session",
      AWS_ENDPOINT_URL: this.network.awsEndpoint,
    };
  }

  #send(environment: Environment, event: unknown): Promise<unknown> {
    const id = this.#nextId++;
    const timeoutMs = this.plan.timeoutSeconds * 1000;
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve, reject) => {
      const { child } = environment;
      const onMessage = (message: {
        id?: number;
        ok?: boolean;
        result?: unknown;
        errorType?: string;
        errorMessage?: string;
      }) => {
        if (message.id !== id) return;
        done();
        if (message.ok) resolve(message.result);
        else reject(new FunctionError(message.errorType ?? "Error", message.errorMessage ?? ""));
      };
      const onExit = (code: number | null) => {
        done();
        reject(new FunctionError("Runtime.ExitError", `the execution environment exited with ${code}`));
      };
      const timer = setTimeout(() => {
        done();
        void stop(child);
        reject(
          new FunctionError("Sandbox.Timedout", `Task timed out after ${this.plan.timeoutSeconds} seconds`),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
      };
      child.on("message", onMessage);
      child.on("exit", onExit);
      // An environment being recycled as the invocation reaches it refuses the message (EPIPE):
      // the invocation fails as Lambda's would with its environment gone, not the rehearsal.
      child.send(
        {
          id,
          event,
          deadline,
          functionName: this.plan.name,
          functionArn: this.plan.arn,
          memoryMb: this.plan.memoryMb,
        },
        (error) => {
          if (!error) return;
          done();
          reject(
            new FunctionError("Runtime.ExitError", `the execution environment is gone: ${error.message}`),
          );
        },
      );
    });
  }
}

/** The function's linked resources as sst's build writes `resource.enc`: AES-256-GCM, zero nonce, tag last. */
function encryptedLinks(plan: FunctionPlan): Buffer {
  const key = Buffer.from(plan.environment.SST_KEY ?? "", "base64");
  if (key.length !== 32) return Buffer.alloc(0);
  const cipher = createCipheriv("aes-256-gcm", key, Buffer.alloc(12, 0));
  const encrypted = Buffer.concat([cipher.update(JSON.stringify(plan.links)), cipher.final()]);
  return Buffer.concat([encrypted, cipher.getAuthTag()]);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
