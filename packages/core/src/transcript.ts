import * as z from "zod/mini";
import { Processor } from "./boundary";

/** One recognised word with its position in the audio. */
export const TranscriptWord = z.object({
  word: z.string(),
  startMs: z.number().check(z.nonnegative()),
  endMs: z.number().check(z.nonnegative()),
  confidence: z.optional(z.number().check(z.gte(0), z.lte(1))),
});
export type TranscriptWord = z.infer<typeof TranscriptWord>;

/** The content of `transcript.json`. */
export const Transcript = z.object({
  text: z.string(),
  words: z.array(TranscriptWord),
  language: z.string(),
  audioMs: z.number().check(z.nonnegative()),
  processor: Processor,
});
export type Transcript = z.infer<typeof Transcript>;
