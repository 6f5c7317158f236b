import type { Logger } from "@aws-lambda-powertools/logger";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import type {
  AudioFormat,
  Boundary,
  BoundaryPolicy,
  EventPublisher,
  ExecutionLiveness,
  ObjectStore,
  Reasoner,
  RecordLookup,
  RedactionSettings,
  Synthesizer,
  Transcriber,
  TranscriptionService,
  WorkflowCallback,
} from "@voxtrail/core";

/**
 * Everything a stage handler talks to. Lambda builds these from its environment; the local
 * runtime builds the embedded ones. Handlers never construct providers themselves.
 */
export interface StageDependencies {
  store: ObjectStore;
  transcriber: Transcriber;
  /**
   * Transcription as a job on a managed service (Amazon Transcribe), when the stage chose it: the
   * workflow then starts the job, waits for it, and reads it back (handlers/start-transcription.ts,
   * handlers/read-transcription.ts) instead of calling `transcriber`.
   */
  transcriptionService?: TranscriptionService;
  /**
   * What resumes the workflow waiting for a transcription job (Step Functions' `SendTaskSuccess`
   * in Lambda, the local state machine's task tokens locally): given with `transcriptionService`.
   */
  workflowCallback?: WorkflowCallback;
  reasoner: Reasoner;
  /**
   * A lookup that reads its records on first use (S3's) has `load()`: Reason calls it before
   * recording the lookup's processor, whose version names the records read.
   */
  records: RecordLookup & { load?(): Promise<void> };
  synthesizer: Synthesizer;
  events: EventPublisher;
  logger: Logger;
  /** Where the handlers themselves run: `aws-account` (Lambda) or `local`. */
  compute: Boundary;
  /** The stage environment's boundary policy, checked before any provider is called. */
  boundaryPolicy: BoundaryPolicy;
  /** Language of voicemails and replies (BCP 47 primary tag, e.g. "en"). */
  language: string;
  /**
   * The languages the deployment takes (BCP 47 with region: `en-US`, `es-US`), when its stage
   * config names them: each call's language is then found per call (call-language.ts), and one it
   * does not take fails named. Absent, every call is in `language`, as before.
   */
  languages?: readonly string[];
  /**
   * The stage's redaction of callers' data (docs/redaction.md); absent, nothing is redacted. With
   * it, the transcript with the caller's numbers is kept only in the job's unredacted location.
   */
  redaction?: RedactionSettings;
  /** Format of the synthesized reply. */
  replyFormat: AudioFormat;
  /** Whether the execution that claimed a job still runs (duplicate deliveries ask). */
  executions: ExecutionLiveness;
  /** Largest voicemail accepted, in bytes. */
  maxSourceBytes: number;
  /**
   * Jobs the runtime has in flight now, recorded with every stage attempt. The local runtime knows;
   * a Lambda instance, which sees one invocation, leaves this out.
   */
  jobsInFlight?: () => number;
  /**
   * Powertools Metrics: each attempt's timings go out as CloudWatch EMF (dimensions stage and
   * provider; environment as a default dimension). Lambda sets it; locally it is left out, so
   * nothing but the CLI's own output reaches stdout, and the figures live in the activity records.
   */
  metrics?: Metrics;
  /**
   * The process's interrupt (the local runtime's, aborted on SIGINT or SIGTERM): every attempt in
   * flight then fails at once with `AttemptInterrupted`, recorded, and no later one begins. Lambda
   * leaves it out.
   */
  interrupt?: AbortSignal;
  /** Wall clock, injectable for tests. */
  now?: () => Date;
}
