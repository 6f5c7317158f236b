import type { Transcript } from "@voxtrail/core";

/**
 * The output document Amazon Transcribe writes for a completed batch job, in its documented shape
 * (Developer Guide, "Data input and output"): the transcript, then one `pronunciation` item per
 * word with `start_time`/`end_time` in seconds and a confidence, as strings. The embedded
 * recogniser gives no punctuation, so there are no `punctuation` items.
 *
 * @example
 * const body = JSON.stringify(transcribeOutputDocument("job-1", "000000000000", transcript));
 */
export function transcribeOutputDocument(jobName: string, accountId: string, transcript: Transcript) {
  const seconds = (ms: number) => String(Math.round(ms) / 1000);
  return {
    jobName,
    accountId,
    results: {
      transcripts: [{ transcript: transcript.text }],
      items: transcript.words.map((word) => ({
        start_time: seconds(word.startMs),
        end_time: seconds(word.endMs),
        alternatives: [{ confidence: String(word.confidence ?? 1), content: word.word }],
        type: "pronunciation",
      })),
    },
    status: "COMPLETED",
  };
}
