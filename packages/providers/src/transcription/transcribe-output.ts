import { type Processor, round, type Transcript, TranscriptionFailed } from "@voxtrail/core";
import * as z from "zod/mini";

/** A decimal number of seconds, as Transcribe writes times (strings). */
const Seconds = z.string().check(z.regex(/^\d+(\.\d+)?$/));

/** One item of the output: a word (`pronunciation`, timed) or punctuation (untimed); a confidence in [0, 1]. */
const Item = z.looseObject({
  type: z.enum(["pronunciation", "punctuation"]),
  start_time: z.optional(Seconds),
  end_time: z.optional(Seconds),
  alternatives: z
    .array(
      z.looseObject({ content: z.string(), confidence: z.string().check(z.regex(/^(0(\.\d+)?|1(\.0+)?)$/)) }),
    )
    .check(z.minLength(1)),
});

/**
 * The transcript document an Amazon Transcribe batch job writes (only what is read; other fields,
 * such as `audio_segments`, `speaker_labels` or an item's `id`, are allowed and ignored).
 */
const TranscribeOutput = z.looseObject({
  status: z.optional(z.string()),
  results: z.looseObject({
    transcripts: z.array(z.looseObject({ transcript: z.string() })).check(z.minLength(1)),
    items: z.array(Item),
  }),
});

/** What the output does not say: the transcript's language, the audio's length, who made it. */
export interface TranscribeOutputContext {
  language: string;
  audioMs: number;
  processor: Processor;
}

/**
 * The transcript in an Amazon Transcribe batch job's output document: its text, and each word
 * (`pronunciation` item, best alternative) with its times in milliseconds and its confidence;
 * punctuation is in the text, not among the words. A document of another shape, or of a job that
 * did not complete, is `TranscriptionFailed` naming what is wrong (paths, never the words).
 *
 * @example
 * const transcript = transcriptOfTranscribeOutput(JSON.parse(body), { language: "en-US", audioMs, processor });
 */
export function transcriptOfTranscribeOutput(
  document: unknown,
  context: TranscribeOutputContext,
): Transcript {
  const parsed = TranscribeOutput.safeParse(document);
  if (!parsed.success) {
    const paths = [...new Set(parsed.error.issues.map((issue) => issue.path.join(".") || "(root)"))];
    throw new TranscriptionFailed(
      `Amazon Transcribe output is malformed at: ${paths.slice(0, 5).join(", ")}`,
    );
  }
  const { status, results } = parsed.data;
  if (status !== undefined && status !== "COMPLETED") {
    throw new TranscriptionFailed(
      `Amazon Transcribe output has status ${status.slice(0, 40)}, not COMPLETED`,
    );
  }
  const words = results.items.flatMap((item, index) => {
    if (item.type === "punctuation") return [];
    if (item.start_time === undefined || item.end_time === undefined) {
      throw new TranscriptionFailed(`Amazon Transcribe output item ${index} is a word without times`);
    }
    const [best] = item.alternatives as [(typeof item.alternatives)[number]];
    return [
      {
        word: best.content,
        startMs: round(Number(item.start_time) * 1000),
        endMs: round(Number(item.end_time) * 1000),
        confidence: Number(best.confidence),
      },
    ];
  });
  return {
    text: results.transcripts.map(({ transcript }) => transcript.trim()).join(" "),
    words,
    language: context.language,
    audioMs: context.audioMs,
    processor: context.processor,
  };
}
