/** One list price, where it was read, and how sure we are of it. */
export interface ListPrice {
  /** US dollars per `unit`; `undefined` when no public figure could be confirmed. */
  usd: number | undefined;
  unit: string;
  /** The pages the figure was read from (stored public copies, read on {@link PriceTable.readOn}). */
  sources: string[];
  /** What the sources say, where they disagree, and what the figure leaves out. */
  note: string;
}

/** The SageMaker instance types a Sonic endpoint is priced on. */
export type SonicInstanceType = "ml.g5.xlarge" | "ml.g6e.xlarge";

/** Every list price the cost estimate uses, in one place, with the date it was read. */
export interface PriceTable {
  /** ISO date on which the prices below were read. */
  readOn: string;
  region: string;
  lambdaRequest: ListPrice;
  lambdaGbSecond: ListPrice;
  standardTransition: ListPrice;
  expressRequest: ListPrice;
  expressGbSecond: ListPrice;
  sageMakerInstanceHour: Record<SonicInstanceType, ListPrice>;
  s3WriteRequest: ListPrice;
  s3ReadRequest: ListPrice;
  eventBridgeCustomEvent: ListPrice;
  cartesiaCredit: ListPrice;
  transcribeAudioSecond: ListPrice;
}

/** Both Lambda prices are read from the same two pages: AWS's pricing page and its pricing whitepaper. */
const LAMBDA_SOURCES = [
  "https://aws.amazon.com/lambda/pricing/",
  "https://docs.aws.amazon.com/whitepapers/latest/how-aws-pricing-works/lambda.html",
];
const SFN_PRICING = "https://aws.amazon.com/step-functions/pricing/";
const SFN_COST_BLOG =
  "https://aws.amazon.com/blogs/compute/building-cost-effective-aws-step-functions-workflows/";
const SFN_GUIDE = "https://www.wring.co/blog/aws-step-functions-pricing-guide";
const S3_REQUESTS_GUIDE = "https://c3x.dev/blog/s3-request-fees-explained";
const CARTESIA_DOCS = "https://docs.cartesia.ai/pricing";
const CARTESIA_PLANS = "https://apio.sh/apis/cartesia";

/**
 * Public list prices, US East (N. Virginia), on-demand, without free tiers or savings plans, as read
 * on 2026-11-30 from stored copies of the pages named in each entry. Where only a third-party page
 * gave the figure, or pages disagreed, the note says so; where nothing could be confirmed the
 * price is `undefined` and the estimate shows that line as not priced rather than guessing.
 *
 * @example
 * PRICES.lambdaGbSecond.usd; // 0.0000166667 (x86)
 */
export const PRICES: PriceTable = {
  readOn: "2026-11-30",
  region: "us-east-1",
  lambdaRequest: {
    usd: 0.2 / 1_000_000,
    unit: "request",
    sources: LAMBDA_SOURCES,
    note: "$0.20 per 1M requests (AWS pricing page example and AWS pricing whitepaper).",
  },
  lambdaGbSecond: {
    usd: 0.0000166667,
    unit: "GB-second",
    sources: LAMBDA_SOURCES,
    note:
      "x86, first 6 billion GB-s a month (the stacks set no architecture, so x86_64). AWS pages " +
      "show $0.00001667; the tier figure $0.0000166667 came from third-party summaries. " +
      "Arm would be $0.0000133334.",
  },
  standardTransition: {
    usd: 0.025 / 1000,
    unit: "state transition",
    sources: [SFN_PRICING, SFN_COST_BLOG, SFN_GUIDE],
    note:
      "$25 per 1M transitions. AWS's pricing page (stored copy) confirms retries are billed as " +
      "transitions but its table did not render; the figure is from the AWS Compute Blog and a " +
      "third-party guide.",
  },
  expressRequest: {
    usd: 1 / 1_000_000,
    unit: "request",
    sources: [SFN_PRICING, SFN_COST_BLOG],
    note: "$1.00 per 1M executions (AWS Compute Blog).",
  },
  expressGbSecond: {
    usd: 0.00001667,
    unit: "GB-second",
    sources: [SFN_PRICING, SFN_GUIDE],
    note:
      "First tier, from a third-party guide; the AWS page (stored copy) confirms the rounding " +
      "(up to 100 ms) and memory billed in 64 MB chunks, not the figure.",
  },
  sageMakerInstanceHour: {
    "ml.g5.xlarge": {
      usd: 1.41,
      unit: "instance-hour",
      sources: [
        "https://zircon.tech/blog/the-real-cost-of-running-ai-models-on-aws-sagemaker-inference-deep-dive",
        "https://cloudmess.io/blog/real-cost-of-running-ai-in-production",
        "https://www.wring.co/blog/aws-sagemaker-inference-guide",
      ],
      note:
        "Real-time inference, on demand. Not confirmed on AWS's own page (its table did not " +
        "render); two third-party pages say about $1.41, one says $1.21.",
    },
    "ml.g6e.xlarge": {
      usd: undefined,
      unit: "instance-hour",
      sources: ["https://aws.amazon.com/sagemaker/pricing/"],
      note: "No price for ml.g6e.xlarge real-time inference could be confirmed: not priced.",
    },
  },
  s3WriteRequest: {
    usd: 0.005 / 1000,
    unit: "PUT/COPY/POST/LIST request",
    sources: ["https://aws.amazon.com/s3/pricing/", S3_REQUESTS_GUIDE],
    note: "S3 Standard, $0.005 per 1,000 (third-party summary; AWS's table did not render).",
  },
  s3ReadRequest: {
    usd: 0.0004 / 1000,
    unit: "GET/HEAD request",
    sources: ["https://aws.amazon.com/s3/pricing/", S3_REQUESTS_GUIDE],
    note: "S3 Standard, $0.0004 per 1,000 (third-party summary). Storage and transfer not counted.",
  },
  eventBridgeCustomEvent: {
    usd: 1 / 1_000_000,
    unit: "custom event",
    sources: [
      "https://aws.amazon.com/eventbridge/pricing/",
      "https://blog.awsfundamentals.com/aws-eventbridge-pricing-guide",
      "https://cloudburn.io/blog/amazon-eventbridge-pricing",
    ],
    note:
      "$1.00 per 1M custom events (third-party guides). AWS service events, such as S3 Object " +
      "Created on the default bus, are free.",
  },
  transcribeAudioSecond: {
    usd: undefined,
    unit: "audio second",
    sources: ["https://aws.amazon.com/transcribe/pricing/", "https://aws.amazon.com/cn/transcribe/pricing"],
    note:
      "Standard batch transcription is billed per second of audio, at least 15 s per request " +
      "(AWS's pricing page, stored copy, 2026-12-02). Its per-minute table did not render, and no " +
      "page we could read gave a sourced figure (the commonly quoted $0.024 a minute for the first " +
      "250,000 minutes is unconfirmed): not priced.",
  },
  cartesiaCredit: {
    usd: 49 / 1_250_000,
    unit: "credit",
    sources: [CARTESIA_DOCS, CARTESIA_PLANS],
    note:
      "Cartesia bills credits: TTS ~1 credit per character, batch STT (ink-whisper, /stt) 1 credit " +
      "per 2 s of audio (Cartesia docs). A credit's price depends on the plan: Startup, $49 for " +
      "1.25M credits, used here; Pro $5 per 100k, Scale $299 per 8M (third-party listing).",
  },
};

/**
 * The on-demand hourly price of a SageMaker instance type, or `undefined` when the table has no
 * entry for it (an entry may itself hold `usd: undefined`: listed, but no price confirmed).
 *
 * @example
 * instanceHourPrice("ml.g6e.xlarge")?.usd; // undefined: not confirmed
 */
export function instanceHourPrice(instanceType: string, prices: PriceTable = PRICES): ListPrice | undefined {
  const table: Record<string, ListPrice> = prices.sageMakerInstanceHour;
  return Object.hasOwn(table, instanceType) ? table[instanceType] : undefined;
}
