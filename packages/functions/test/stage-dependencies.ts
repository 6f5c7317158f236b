import { Logger } from "@aws-lambda-powertools/logger";
import { LOCAL_BOUNDARY, type OutcomeDetail, type Processor } from "@voxtrail/core";
import { DirectoryStore } from "@voxtrail/storage";
import { scratchDirectory } from "../../../test/support/temporary-directory";
import { loadBoundaryPolicy } from "../src/boundary/policy-file";
import type { StageDependencies } from "../src/dependencies";
import type { KernelDependencies, StageDefinition } from "../src/kernel/stage-definition";
import { stageHandler } from "../src/kernel/stage-handler";

const processor = (provider: string): Processor => ({
  provider,
  model: "test",
  version: "0",
  boundary: LOCAL_BOUNDARY,
});

/**
 * Dependencies over a real directory store, with providers that fail loudly if a test reaches them
 * without replacing them: each handler test swaps in exactly the provider it exercises.
 */
export async function testDependencies(overrides: Partial<StageDependencies> = {}) {
  const published: Array<{ detailType: string; detail: OutcomeDetail }> = [];
  const unexpected = (what: string) => () => {
    throw new Error(`${what} was not expected in this test`);
  };
  const deps: StageDependencies = {
    store: new DirectoryStore({ root: scratchDirectory("voxtrail-fn-") }),
    transcriber: { processor: processor("transcriber"), transcribe: unexpected("transcribe") },
    reasoner: { processor: processor("reasoner"), reason: unexpected("reason") },
    records: { processor: processor("records"), find: unexpected("find") },
    synthesizer: { processor: processor("synthesizer"), synthesize: unexpected("synthesize") },
    events: {
      publish: async (detailType, detail) => {
        published.push({ detailType, detail });
        return `event-${published.length}`;
      },
    },
    logger: new Logger({ serviceName: "voxtrail-test", logLevel: "SILENT" }),
    compute: LOCAL_BOUNDARY,
    boundaryPolicy: await loadBoundaryPolicy("local"),
    language: "en",
    replyFormat: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
    maxSourceBytes: 1024 * 1024,
    // No earlier execution of any job is running unless a test says so.
    executions: { isRunning: async () => false },
    ...overrides,
  };
  return { deps, published };
}

/** A Lambda-like context for calling a handler directly. */
export const context = {
  functionName: "voxtrail-test",
  awsRequestId: "request-1",
  invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:voxtrail-test",
  memoryLimitInMB: "128",
  functionVersion: "$LATEST",
  getRemainingTimeInMillis: () => 60_000,
} as never;

/**
 * Calls `stage`'s handler, as the kernel builds it over `deps`, with `input` and the test context.
 *
 * @example
 * const prepared = await invoke(preparePromptsStage, deps, input);
 */
export function invoke<D extends KernelDependencies, I, O, C>(
  stage: StageDefinition<D, I, O, C>,
  deps: D,
  input: unknown,
): Promise<O> {
  return stageHandler(stage, deps)(input, context);
}
