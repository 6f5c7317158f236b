import {
  GetTranscriptionJobCommand,
  TranscribeClient,
  type TranscriptionJob,
} from "@aws-sdk/client-transcribe";
import { DirectoryStore } from "@voxtrail/storage";
import { afterAll, beforeAll } from "vitest";
import { temporaryDirectory } from "../../../../test/support/temporary-directory";
import { startTranscribeEndpoint, type TranscribeEndpoint } from "../../src/transcribe-endpoint/server";

/** The region and credentials the tests' Transcribe clients are made with. */
export const LOCAL_TRANSCRIBE_CLIENT = {
  region: "us-east-1",
  credentials: { accessKeyId: "local", secretAccessKey: "local" },
};

/** The local Transcribe endpoint a test file talks to, over a directory store of its own. */
export interface LocalTranscribe {
  store: DirectoryStore;
  endpoint: TranscribeEndpoint;
  /** The AWS SDK's Transcribe client, pointed at the endpoint. */
  client: TranscribeClient;
}

/**
 * Starts the local Transcribe endpoint over a fresh directory store (under a temp directory named
 * `prefix`...) before the calling file's tests, with an SDK client for it; stops both and removes
 * the store after them. Call it at the top of the file; its fields are set once the tests run.
 *
 * @example
 * const local = localTranscribe("voxtrail-transcribe-");
 * it("...", async () => local.client.send(new GetTranscriptionJobCommand({ TranscriptionJobName: "a" })));
 */
export function localTranscribe(prefix: string): LocalTranscribe {
  const root = temporaryDirectory(prefix);
  const local = {} as LocalTranscribe;
  beforeAll(async () => {
    local.store = new DirectoryStore({ root: root() });
    local.endpoint = await startTranscribeEndpoint({ store: local.store });
    local.client = new TranscribeClient({ endpoint: local.endpoint.url, ...LOCAL_TRANSCRIBE_CLIENT });
  });
  afterAll(async () => {
    local.client?.destroy();
    await local.endpoint?.close();
  });
  return local;
}

/** The job `name` as `GetTranscriptionJob` describes it. */
export async function describedJob(client: TranscribeClient, name: string): Promise<TranscriptionJob> {
  const { TranscriptionJob: found } = await client.send(
    new GetTranscriptionJobCommand({ TranscriptionJobName: name }),
  );
  return found as TranscriptionJob;
}

/** The job `name` once it has ended, asking as the workflow's Wait/Get loop would. */
export async function endedJob(client: TranscribeClient, name: string): Promise<TranscriptionJob> {
  for (;;) {
    const found = await describedJob(client, name);
    if (found.TranscriptionJobStatus !== "IN_PROGRESS") return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
