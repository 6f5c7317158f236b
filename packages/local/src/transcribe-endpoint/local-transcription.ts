import { TranscribeClient } from "@aws-sdk/client-transcribe";
import type { ObjectStore, TranscriptionService } from "@voxtrail/core";
import { AmazonTranscribe, PocketsphinxTranscriber, type ProviderClients } from "@voxtrail/providers";
import type { ProviderSelection } from "@voxtrail/workflow";
import type { TranscribeJobStateChangeEvent } from "./job-state-change";
import { startTranscribeEndpoint, type TranscribeEndpoint } from "./server";

/** The region the local Transcribe endpoint's client names: what lineage records as the service's. */
export const LOCAL_TRANSCRIBE_REGION = "us-east-1";

/**
 * The data-access role the local service names when it starts a job with queueing on: the local
 * endpoint checks one is given, as Transcribe does, and assumes nothing.
 */
const LOCAL_DATA_ACCESS_ROLE_ARN = "arn:aws:iam::000000000000:role/voxtrail-local-transcribe-data-access";

/** What a local run that transcribes with Amazon Transcribe needs besides its functions. */
export interface LocalTranscription {
  /** The Transcribe client the job's steps use (undefined: the selection needs none). */
  client?: TranscribeClient;
  /** The service over the local endpoint, labelled as the stand-in it is; unset with a given client. */
  service?: TranscriptionService;
  /** Stops the local endpoint, if one was started. */
  close(): Promise<void>;
}

/**
 * The Transcribe side of a local run. Unless the selection's transcriber is `amazon-transcribe`,
 * nothing. With it: the client given in `clients`, or else a local endpoint that speaks
 * Transcribe's API over the embedded recogniser and reads and writes `store` (its `s3://` URIs are
 * the store's), with a client on it and the service over it, labelled as the stand-in it is (its
 * boundary stays the client's `transcribe@us-east-1`, so the stage's boundary policy is checked as
 * in the cloud; its model and endpoint say the audio went to pocketsphinx here), starting jobs with
 * queueing on; each job's end goes to `onJobStateChange` as Transcribe's EventBridge event. With a
 * given client, its endpoint's events are the caller's to deliver.
 *
 * @example
 * const transcription = await localTranscription(store, selection, clients);
 * try { ... } finally { await transcription.close(); }
 */
export async function localTranscription(
  store: ObjectStore,
  selection: Pick<ProviderSelection, "transcriber" | "transcribeJobPrefix">,
  clients: ProviderClients = {},
  onJobStateChange: (event: TranscribeJobStateChangeEvent) => void = () => {},
): Promise<LocalTranscription> {
  if (selection.transcriber !== "amazon-transcribe") return { close: async () => {} };
  if (clients.transcribe) return { client: clients.transcribe, close: async () => {} };
  const recogniser = new PocketsphinxTranscriber();
  const endpoint: TranscribeEndpoint = await startTranscribeEndpoint({
    store,
    transcriber: recogniser,
    onJobStateChange,
  });
  const client = new TranscribeClient({
    endpoint: endpoint.url,
    region: LOCAL_TRANSCRIBE_REGION,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const service = await AmazonTranscribe.create({
    client,
    ...(selection.transcribeJobPrefix ? { jobNamePrefix: selection.transcribeJobPrefix } : {}),
    dataAccessRoleArn: LOCAL_DATA_ACCESS_ROLE_ARN,
    describedAs: {
      model: `${recogniser.processor.model} behind Amazon Transcribe's batch API (local stand-in); not Amazon Transcribe`,
      version: recogniser.processor.version,
      endpoint: endpoint.url,
    },
  });
  return {
    client,
    service,
    close: async () => {
      await endpoint.settled();
      await endpoint.close();
    },
  };
}
