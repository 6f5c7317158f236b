import type { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import type { S3Client } from "@aws-sdk/client-s3";
import type { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import type { TranscribeClient } from "@aws-sdk/client-transcribe";
import {
  InvalidInput,
  type Reasoner,
  type RecordLookup,
  type Synthesizer,
  type Transcriber,
  type TranscriptionService,
} from "@voxtrail/core";
import { PROVIDER_ENVIRONMENT, type ProviderSelection } from "@voxtrail/workflow";

/** The provider each role is filled with. */
export interface Providers {
  transcriber: Transcriber;
  /** Transcription as a job on a managed service (Amazon Transcribe), for the start/wait/read flow. */
  transcriptionService: TranscriptionService;
  reasoner: Reasoner;
  synthesizer: Synthesizer;
  /** A lookup that reads its records on first use (S3's) has `load()`. */
  records: RecordLookup & { load?(): Promise<void> };
}
export type ProviderRole = keyof Providers;

/** The selection setting that chooses each role's provider (one setting may fill two roles). */
export const ROLE_SETTING = {
  transcriber: "transcriber",
  transcriptionService: "transcriber",
  reasoner: "reasoner",
  synthesizer: "synthesizer",
  records: "records",
} as const satisfies Record<ProviderRole, keyof ProviderSelection & keyof typeof PROVIDER_ENVIRONMENT>;

/** SDK clients to use instead of ones built from the standard AWS configuration (tests, custom endpoints). */
export interface ProviderClients {
  sagemaker?: SageMakerRuntimeClient;
  bedrock?: BedrockRuntimeClient;
  s3?: S3Client;
  transcribe?: TranscribeClient;
}

/**
 * Builds a role's cloud provider from the selection, or `undefined` when the selection chose the
 * embedded engine (`local`). Each role's builder lives in its own module, so a function bundles the
 * SDKs of the roles it fills and no others.
 */
export type RoleBuilder<R extends ProviderRole> = (
  selection: ProviderSelection,
  clients: ProviderClients,
) => Promise<Providers[R] | undefined>;

/**
 * A setting a chosen provider cannot do without; `InvalidInput` naming it and its environment
 * variable otherwise.
 */
export function required<T>(
  value: T | undefined,
  setting: keyof typeof PROVIDER_ENVIRONMENT,
  provider: string,
): T {
  if (value === undefined || value === "") {
    throw new InvalidInput(
      `provider ${provider} needs ${setting} (environment variable ${PROVIDER_ENVIRONMENT[setting]})`,
    );
  }
  return value;
}

/** `{ [key]: value }`, or nothing when `value` is unset. */
export function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
