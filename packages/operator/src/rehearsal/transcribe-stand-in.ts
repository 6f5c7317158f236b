import { S3Client } from "@aws-sdk/client-s3";
import type { Transcriber } from "@voxtrail/core";
import {
  type JobLanguageSettings,
  startTranscribeEndpoint,
  type TranscribeEndpoint,
  type TranscribeJobStateChangeEvent,
} from "@voxtrail/local";
import { S3Store } from "@voxtrail/storage";

/** Where the stand-in serves, and the stage's bucket in moto that it reads and writes. */
export interface TranscribeStandInOptions {
  /** moto_server's base URL: the stage's bucket is there. */
  motoEndpoint: string;
  bucket: string;
  region: string;
  account: string;
  /** The recogniser behind the endpoint; pocketsphinx by default. */
  transcriber?: Transcriber;
  /**
   * The language codes it takes (English by default) and its language identifier (none by
   * default): for a rehearsal of a stage that names `languages`, with a transcriber that has their
   * transcripts (`SuppliedTranscripts`).
   */
  languages?: JobLanguageSettings;
  /** Where each job's "Transcribe Job State Change" event goes (the rehearsal's EventBridge). */
  onJobStateChange: (event: TranscribeJobStateChangeEvent) => void;
}

/**
 * The Amazon Transcribe the rehearsal's functions and state machines reach through the authorizing
 * proxy: the local endpoint that speaks Transcribe's batch API (JSON 1.1), backed by the embedded
 * recogniser (pocketsphinx, not Transcribe), as the local Sonic endpoint is backed by flite. It
 * plays the service's side: it reads a job's media from the stage's bucket in moto and writes the
 * output document there, as Transcribe itself would, so it talks to moto directly. What Transcribe
 * does with the data-access role the start passes (read the media, write the output) is
 * authorized by the proxy when the caller starts the job (request-actions.ts), under that role,
 * and the caller's `iam:PassRole` with it. Each job's end goes to `onJobStateChange`, in the
 * stage's account and region, as EventBridge delivers Transcribe's events.
 *
 * @example
 * const transcribe = await startTranscribeStandIn({ motoEndpoint, bucket, region, account });
 * upstreams.transcribe = transcribe.url;
 */
export async function startTranscribeStandIn(options: TranscribeStandInOptions): Promise<TranscribeEndpoint> {
  const client = new S3Client({
    endpoint: options.motoEndpoint,
    region: options.region,
    forcePathStyle: true,
    credentials: { accessKeyId: "rehearsal-transcribe", secretAccessKey: "rehearsal-transcribe" },
  });
  return startTranscribeEndpoint({
    store: new S3Store({ client, bucket: options.bucket }),
    accountId: options.account,
    region: options.region,
    onJobStateChange: options.onJobStateChange,
    ...(options.transcriber ? { transcriber: options.transcriber } : {}),
    ...options.languages,
  });
}
