import { z } from "zod";
import { Processor } from "./boundary";

/** One recognised word with its position in the audio. */
export const TranscriptWord = z.object({
  word: z.string(),
  startMs: z.number().nonnegative(),
  endMs: z.number().nonnegative(),
  confidence: z.number().min(0).max(1).optional(),
});
export type TranscriptWord = z.infer<typeof TranscriptWord>;

/** The content of `transcript.json`. */
export const Transcript = z.object({
  text: z.string(),
  words: z.array(TranscriptWord),
  language: z.string(),
  audioMs: z.number().nonnegative(),
  processor: Processor,
});
export type Transcript = z.infer<typeof Transcript>;
