import type { Logger } from "@aws-lambda-powertools/logger";
import type {
  AudioFormat,
  Boundary,
  EventPublisher,
  ObjectStore,
  Reasoner,
  RecordLookup,
  Synthesizer,
  Transcriber,
} from "@voxtrail/core";

/**
 * Everything a stage handler talks to. Lambda builds these from its environment; the local
 * runtime builds the embedded ones. Handlers never construct providers themselves.
 */
export interface StageDependencies {
  store: ObjectStore;
  transcriber: Transcriber;
  reasoner: Reasoner;
  records: RecordLookup;
  synthesizer: Synthesizer;
  events: EventPublisher;
  logger: Logger;
  /** Where the handlers themselves run: `aws-account` (Lambda) or `local`. */
  compute: Boundary;
  /** Language of voicemails and replies (BCP 47 primary tag, e.g. "en"). */
  language: string;
  /** Format of the synthesized reply. */
  replyFormat: AudioFormat;
  /** Largest voicemail accepted, in bytes. */
  maxSourceBytes: number;
  /** Wall clock, injectable for tests. */
  now?: () => Date;
}
