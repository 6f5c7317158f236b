import type { Processor, Reasoner, RecordLookup, Transcript, VoicemailRecord } from "@voxtrail/core";
import { toReasoningError } from "@voxtrail/providers";
import type { BedrockThrottle } from "./bedrock-throttle";
import { SIMULATED_LABEL } from "./simulated-engines";

/** Characters a token, the usual rule of thumb for English text. */
const CHARACTERS_PER_TOKEN = 4;

/**
 * Tokens every call sends besides the transcript: the Bedrock reasoner's system prompt and its
 * `record_voicemail` tool schema, about 2,000 characters between them.
 */
const PROMPT_TOKENS = 500;

/**
 * A reasoner behind a simulated Bedrock-like throttle: each call first runs `inner` (the local
 * reasoner), then asks `throttle` for one request and the call's estimated tokens (the
 * transcript and the prompt in, the record's fields out, about 4 characters a token); a refusal
 * throws what the Bedrock reasoner throws for Bedrock's `ThrottlingException` once mapped
 * (`toReasoningError`: `ReasoningThrottled`), and the record is dropped. Its processor, and so every
 * record it makes, says `simulated`: the local reasoner behind a throttle, not Bedrock.
 *
 * @example
 * const reasoner = new ThrottledReasoner(new LocalReasoner(), new BedrockThrottle({ requestsPerMinute: 50 }));
 */
export class ThrottledReasoner implements Reasoner {
  readonly processor: Processor;

  constructor(
    private readonly inner: Reasoner,
    private readonly throttle: BedrockThrottle,
  ) {
    const { model, version } = inner.processor;
    this.processor = {
      ...inner.processor,
      model: `${SIMULATED_LABEL}: ${model} ${version} behind a simulated Bedrock-like throttle; not Bedrock`,
      version: SIMULATED_LABEL,
    };
  }

  /** The inner reasoner's record, relabelled, if the throttle accepts the call. @throws ReasoningThrottled */
  async reason(
    transcript: Transcript,
    records: RecordLookup,
    options?: { signal?: AbortSignal },
  ): Promise<VoicemailRecord> {
    const record = await this.inner.reason(transcript, records, options);
    const { intent, entities, summary, replyText } = record;
    const characters =
      transcript.text.length + JSON.stringify({ intent, entities, summary, replyText }).length;
    if (!this.throttle.take(PROMPT_TOKENS + Math.ceil(characters / CHARACTERS_PER_TOKEN))) {
      throw toReasoningError(bedrockThrottling());
    }
    return { ...record, processor: this.processor };
  }
}

/** What Bedrock Runtime's client throws when a quota refuses a call: HTTP 429, `ThrottlingException`. */
function bedrockThrottling(): Error {
  return Object.assign(new Error("Too many requests, please wait before trying again."), {
    name: "ThrottlingException",
    $metadata: { httpStatusCode: 429 },
  });
}
