import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandOutput,
} from "@aws-sdk/client-bedrock-runtime";
import {
  type Entities,
  type Processor,
  type Reasoner,
  ReasoningInvalidOutput,
  type RecordLookup,
  type Transcript,
  type VoicemailRecord,
} from "@voxtrail/core";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { observeSdkCalls } from "../aws/sdk-calls";
import { toReasoningError } from "./bedrock-errors";
import { checkedEntities, checkedReading, systemBlocksFor, unsureReplyIn } from "./bedrock-language";
import { checkFacts, heldNote, REVIEW_THRESHOLD, trustedEntities } from "./fact-confidence";
import { matchRecord } from "./record-match";
import { transcriptMessage } from "./transcript-prompt";
import { ModelVoicemailRecord, VOICEMAIL_TOOL_CONFIG, VOICEMAIL_TOOL_NAME } from "./voicemail-tool";

/** How to reach a model on Amazon Bedrock. */
export interface BedrockReasonerOptions {
  /** A Bedrock Runtime client; its region, credentials and endpoint decide where the transcript goes. */
  client: BedrockRuntimeClient;
  /**
   * The model (or inference profile) id, chosen per stage environment, e.g.
   * `anthropic.claude-3-5-haiku-20241022-v1:0`. Bedrock ids name their version, so the id is also
   * the processor's version.
   */
  modelId: string;
  /** Most tokens the model may answer with; 1024 by default. */
  maxTokens?: number;
  /**
   * Confidence below which a fact the model returned is held for review ({@link checkFacts});
   * default {@link REVIEW_THRESHOLD}, 0 to hold none for its words' confidence (the call and length rules still hold).
   */
  reviewBelow?: number;
  /** Who the reply says is calling when facts are held and the model's reply is replaced; default "Acme support". */
  businessName?: string;
}

/**
 * A reasoner on Amazon Bedrock: one `Converse` call whose `toolConfig` forces the model to answer
 * with the `record_voicemail` tool (intent, entities, summary, reply text), then the same business
 * record lookup as the local reasoner ({@link matchRecord}). The records never go to the model.
 *
 * The transcript is data, not instructions: it is sent escaped between `<transcript>` tags in the
 * user message, and the system prompt says so. The tool's input is checked with zod: anything else
 * is `ReasoningInvalidOutput`. No capacity (`ThrottlingException`, `ServiceUnavailableException`,
 * `ModelNotReadyException`) is `ReasoningThrottled`, retried by the workflow; any other failure is
 * `ReasoningFailed`. No message carries the transcript.
 *
 * The model's facts follow the local reasoner's rule ({@link checkFacts}): each number, the day
 * and the intent is found among the transcript's words and takes the lowest confidence of those
 * words (a number the words do not hold scores 0); one below `reviewBelow` is kept as the model
 * gave it but listed in the record's `review`, is not used to find the business record, and the
 * model's reply, which may state it, is replaced by one that asks for a call back ({@link unsureReplyIn}, in the caller's language).
 *
 * @example
 * const reasoner = await BedrockReasoner.create({
 *   client: new BedrockRuntimeClient({}),
 *   modelId: "anthropic.claude-3-5-haiku-20241022-v1:0",
 * });
 * reasoner.processor.boundary; // { kind: "aws-account", service: "bedrock", region: "eu-west-1" }
 * const record = await reasoner.reason(transcript, records);
 */
export class BedrockReasoner implements Reasoner {
  readonly processor: Processor;
  readonly #options: BedrockReasonerOptions;

  private constructor(options: BedrockReasonerOptions, processor: Processor) {
    this.#options = options;
    this.processor = processor;
    observeSdkCalls(options.client, "bedrock-runtime");
  }

  /** A reasoner whose processor names the region the client resolved, and the endpoint it calls. */
  static async create(options: BedrockReasonerOptions): Promise<BedrockReasoner> {
    const boundary = await awsAccountBoundary(options.client, "bedrock");
    return new BedrockReasoner(options, {
      provider: "bedrock",
      model: options.modelId,
      version: options.modelId,
      endpoint: await endpointOf(options.client),
      boundary,
    });
  }

  /** Asks the model for the voicemail's record, then looks up the business record it refers to. */
  async reason(
    transcript: Transcript,
    records: RecordLookup,
    options: { signal?: AbortSignal } = {},
  ): Promise<VoicemailRecord> {
    const { client, modelId, maxTokens } = this.#options;
    let response: ConverseCommandOutput;
    try {
      response = await client.send(
        new ConverseCommand({
          modelId,
          system: systemBlocksFor(transcript.language),
          messages: [transcriptMessage(transcript.text)],
          toolConfig: VOICEMAIL_TOOL_CONFIG,
          inferenceConfig: { maxTokens: maxTokens ?? 1024, temperature: 0 },
        }),
        options.signal ? { abortSignal: options.signal } : {},
      );
    } catch (error) {
      throw toReasoningError(error);
    }
    const output = parseToolInput(response);
    const entities = withoutEmptyValues(output.entities);
    const reviewBelow = this.#options.reviewBelow ?? REVIEW_THRESHOLD;
    const lengths = (await records.numberLengths?.()) ?? {};
    const { confidence, review } = checkFacts(
      checkedReading(transcript),
      output.intent,
      checkedEntities(transcript.language, entities),
      reviewBelow,
      { lengths, heard: transcript.words },
    );
    return {
      intent: output.intent,
      entities,
      summary: output.summary + heldNote(review),
      match: await matchRecord(trustedEntities(entities, review), records),
      replyText:
        review.length > 0
          ? unsureReplyIn(transcript.language, review, this.#options.businessName ?? "Acme support").text
          : output.replyText,
      ...(Object.keys(confidence).length > 0 ? { confidence } : {}),
      ...(review.length > 0 ? { review } : {}),
      processor: this.processor,
    };
  }
}

/** The record the model passed to the tool, checked; where it went wrong, by path and code only. */
function parseToolInput(response: ConverseCommandOutput): ModelVoicemailRecord {
  const toolUse = response.output?.message?.content?.find(
    (block) => block.toolUse?.name === VOICEMAIL_TOOL_NAME,
  )?.toolUse;
  if (toolUse === undefined) {
    throw new ReasoningInvalidOutput(
      `Bedrock model did not call ${VOICEMAIL_TOOL_NAME} (stop reason ${response.stopReason ?? "none"})`,
    );
  }
  const parsed = ModelVoicemailRecord.safeParse(toolUse.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(input)"}: ${issue.code}`);
    throw new ReasoningInvalidOutput(
      `Bedrock model's ${VOICEMAIL_TOOL_NAME} input is invalid: ${issues.join("; ")}`,
    );
  }
  return parsed.data;
}

/** Models sometimes send `""` for a detail the caller did not give: that is no detail. */
function withoutEmptyValues(entities: Entities): Entities {
  return Object.fromEntries(Object.entries(entities).filter(([, value]) => value?.trim())) as Entities;
}

/** The URL the client sends to: its configured endpoint, or the SDK's regional default. */
async function endpointOf(client: BedrockRuntimeClient): Promise<string> {
  const { config } = client;
  if (config.endpoint !== undefined) {
    const { protocol, hostname, port, path } = await config.endpoint();
    return `${protocol}//${hostname}${port === undefined ? "" : `:${port}`}${path}`;
  }
  return config.endpointProvider({
    Region: await config.region(),
    UseFIPS: await config.useFipsEndpoint(),
    UseDualStack: await config.useDualstackEndpoint(),
  }).url.href;
}
