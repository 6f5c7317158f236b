/**
 * Review threshold: which recogniser confidence a fact needs to be stated rather than held for
 * review. Reads fact-accuracy runs' `--json` files (their clips' transcripts with their words and
 * confidences; several are pooled), reasons over each transcript again holding nothing, and for each candidate
 * threshold counts the facts that would be right, stated wrongly and held (a held fact is not
 * right). Picks the lowest threshold at which the facts stated are at least `--target` right
 * (default 97%): the fewest right facts held. Choose it on the tuning half only:
 *
 *   npx tsx tools/eval/fact-accuracy.ts --splits tuning --deliveries telephony --json /tmp/tune.json
 *   npx tsx tools/eval/fact-accuracy.ts --splits tuning --deliveries wideband --json /tmp/tune-wide.json
 *   npx tsx tools/eval/review-threshold.ts /tmp/tune.json /tmp/tune-wide.json
 *
 * `--lengths none` reasons without the records' number lengths: order and account numbers of
 * another length are then stated, not held (the reasoner before it held them).
 */
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { FactAccuracyResult } from "./fact-accuracy-result";
import { type FactScore, isRecordFact } from "./fact-scoring";
import { rescoreClips } from "./rescore-clips";

/** The facts at one threshold: right, stated wrongly, held, and the share of stated ones right. */
export interface ThresholdRow {
  threshold: number;
  right: number;
  statedWrong: number;
  held: number;
  /** Facts with no value found: neither stated nor held. */
  missing: number;
  total: number;
  /** right / (right + statedWrong); 1 when nothing is stated. */
  statedRight: number;
}

/**
 * The figures at each threshold, from facts scored with nothing held for its confidence: a fact
 * whose confidence is below the threshold counts as held, one with none is never held for it (the
 * reasoner's rule); one the reasoner held for its length stays held.
 *
 * @example
 * thresholdRows(scores, [0, 0.5]); // [{ threshold: 0, right: 90, statedWrong: 6, held: 0, ... }, ...]
 */
export function thresholdRows(scores: readonly FactScore[], thresholds: readonly number[]): ThresholdRow[] {
  const facts = scores.filter((score) => !isRecordFact(score.fact));
  return thresholds.map((threshold) => {
    const held = (score: FactScore) =>
      score.got !== null &&
      (score.held === true || (score.confidence !== undefined && score.confidence < threshold));
    const right = facts.filter((score) => score.right && !held(score)).length;
    const statedWrong = facts.filter((score) => !score.right && score.got !== null && !held(score)).length;
    return {
      threshold,
      right,
      statedWrong,
      held: facts.filter(held).length,
      missing: facts.filter((score) => score.got === null).length,
      total: facts.length,
      statedRight: right + statedWrong === 0 ? 1 : right / (right + statedWrong),
    };
  });
}

/** The lowest threshold whose stated facts are at least `target` right; `undefined` if none is. */
export function chooseThreshold(rows: readonly ThresholdRow[], target: number): ThresholdRow | undefined {
  return [...rows].sort((a, b) => a.threshold - b.threshold).find((row) => row.statedRight >= target);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { target: { type: "string", default: "0.97" }, lengths: { type: "string", default: "records" } },
  });
  if (values.lengths !== "records" && values.lengths !== "none")
    throw new Error(`--lengths takes records (the default) or none: ${values.lengths}`);
  if (positionals.length === 0) throw new Error("usage: review-threshold.ts RESULT.json... [--target 0.97]");
  const rescored = await Promise.all(
    positionals.map(async (file) =>
      rescoreClips(JSON.parse(await readFile(file, "utf8")) as FactAccuracyResult, {
        reviewBelow: 0,
        lengths: values.lengths === "records",
      }),
    ),
  );
  const scores = rescored.flat().flatMap((clip) => clip.facts);
  const thresholds = Array.from({ length: 20 }, (_, i) => i / 20);
  const rows = thresholdRows(scores, thresholds);
  const percent = (n: number) => `${(100 * n).toFixed(1)}%`;
  const lines = [
    `threshold  right         stated wrong  held  stated right`,
    ...rows.map(
      (row) =>
        `${row.threshold.toFixed(2).padEnd(9)}  ${`${row.right}/${row.total} (${percent(row.right / row.total)})`.padEnd(13)} ${String(row.statedWrong).padEnd(13)} ${String(row.held).padEnd(5)} ${percent(row.statedRight)}`,
    ),
  ];
  const chosen = chooseThreshold(rows, Number(values.target));
  lines.push(
    chosen
      ? `chosen: ${chosen.threshold} (the lowest with stated facts >= ${percent(Number(values.target))} right)`
      : `no threshold keeps stated facts >= ${percent(Number(values.target))} right`,
  );
  if (chosen) {
    const held = scores.filter(
      (score) =>
        score.got !== null &&
        (score.held === true || (score.confidence !== undefined && score.confidence < chosen.threshold)),
    );
    const kinds = [...new Set(held.map((score) => score.fact))];
    const byKind = kinds.map((kind) => {
      const of = held.filter((score) => score.fact === kind);
      return `${kind} ${of.length} (${of.filter((score) => score.right).length} of them right)`;
    });
    lines.push(`held at ${chosen.threshold}: ${byKind.join(", ") || "none"}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
