/**
 * Reasoning again over a fact-accuracy run's saved transcripts: each clip's words (with their
 * confidences) go through the current local reasoner, so a change to the reasoner or its review
 * rule is measured on the same recognitions without decoding anything again. Prints the run's
 * tables with the new facts (per speaker, held-out speakers apart):
 *
 *   npx tsx tools/eval/fact-accuracy.ts --voices held-out --splits held-out --deliveries telephony --json /tmp/held.json
 *   npx tsx tools/eval/rescore-clips.ts /tmp/held.json                  # as the reasoner is now
 *   npx tsx tools/eval/rescore-clips.ts /tmp/held.json --lengths none   # without the records' number lengths
 *   npx tsx tools/eval/rescore-clips.ts /tmp/held.json --review-below 0 # holding nothing for its confidence
 */
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { LOCAL_BOUNDARY, type RecordLookup } from "@voxtrail/core";
import { JsonlRecordLookup, LocalReasoner } from "@voxtrail/providers";
import { CORPUS_FILE, loadAccuracyCorpus, RECORDS_FILE } from "./accuracy-corpus";
import type { FactAccuracyResult } from "./fact-accuracy-result";
import { type ClipResult, summarizeClips } from "./fact-accuracy-summary";
import { factAccuracyTable } from "./fact-accuracy-table";
import { scoreFacts } from "./fact-scoring";

/** How to reason again: the review threshold (default the reasoner's), and whether records' lengths are known. */
export interface RescoreOptions {
  reviewBelow?: number;
  /** `false`: reason without `RecordLookup.numberLengths`, as before the length rule. */
  lengths?: boolean;
}

/** The run's clips with each clip's facts scored again from its saved words. */
export async function rescoreClips(
  result: FactAccuracyResult,
  options: RescoreOptions = {},
): Promise<ClipResult[]> {
  const jsonl = await JsonlRecordLookup.fromFile(RECORDS_FILE);
  const corpus = await loadAccuracyCorpus(CORPUS_FILE, jsonl);
  const records: RecordLookup =
    options.lengths === false
      ? { processor: jsonl.processor, find: (entities) => jsonl.find(entities) }
      : jsonl;
  const reasoner = new LocalReasoner(
    options.reviewBelow === undefined ? {} : { reviewBelow: options.reviewBelow },
  );
  const clips: ClipResult[] = [];
  for (const clip of result.clips) {
    const script = corpus.scripts.find((candidate) => candidate.id === clip.script);
    if (!script || !clip.words) throw new Error(`clip ${clip.script} ${clip.voice} has no words or script`);
    const transcript = {
      text: clip.transcript,
      words: clip.words,
      language: "en",
      audioMs: 0,
      processor: { provider: "eval", model: "saved-transcript", version: "1", boundary: LOCAL_BOUNDARY },
    };
    clips.push({ ...clip, facts: scoreFacts(script.expected, await reasoner.reason(transcript, records)) });
  }
  return clips;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { lengths: { type: "string", default: "records" }, "review-below": { type: "string" } },
  });
  if (positionals.length !== 1)
    throw new Error("usage: rescore-clips.ts RESULT.json [--lengths none] [--review-below N]");
  if (values.lengths !== "records" && values.lengths !== "none")
    throw new Error(`--lengths takes records (the default) or none: ${values.lengths}`);
  const result = JSON.parse(await readFile(positionals[0] as string, "utf8")) as FactAccuracyResult;
  const clips = await rescoreClips(result, {
    lengths: values.lengths === "records",
    ...(values["review-below"] === undefined ? {} : { reviewBelow: Number(values["review-below"]) }),
  });
  process.stdout.write(factAccuracyTable({ ...result, clips, summaries: summarizeClips(clips) }));
}
