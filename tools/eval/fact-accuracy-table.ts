import { speakerSetOf } from "./accuracy-speakers";
import type { FactAccuracyResult } from "./fact-accuracy-result";
import type { ClipResult, FactAccuracySummary } from "./fact-accuracy-summary";
import type { FactKind, FactTally } from "./fact-scoring";

/** The kinds of fact in the per-kind table, in column order. */
const FACT_COLUMNS: readonly FactKind[] = [
  "intent",
  "orderNumber",
  "accountNumber",
  "callbackNumber",
  "day",
  "record",
];
/** The halves of the corpus, then both pooled. */
const SPLIT_ORDER = ["tuning", "held-out", "all"] as const;
/** The speaker sets, then both pooled. */
const SPEAKER_ORDER = ["tuned", "held-out", "all"] as const;

/**
 * The fact-accuracy figures as plain-text tables: for each half of the corpus measured (then both
 * pooled, when both were) and each speaker set (tuned, held out, then both when both were), WER,
 * facts right, held for review and stated wrongly per speaker x delivery x noise with the speakers
 * pooled below; then each kind of fact per half x speaker set x delivery x noise. Deliveries and
 * noise levels are pooled too, when more than one was measured.
 */
export function factAccuracyTable(result: FactAccuracyResult): string {
  const noise = Object.entries(result.snrDb)
    .map(([level, db]) => `${level} ${db} dB`)
    .join(", ");
  const realTime =
    result.clips.reduce((sum, clip) => sum + clip.realTimeFactor, 0) / Math.max(1, result.clips.length);
  const lines = [
    `fact accuracy: ${result.engine}; line noise SNR ${noise}; ${result.clips.length} clips in ${(result.wallMs / 1000).toFixed(0)} s (transcription ${realTime.toFixed(2)} x real time on average)`,
  ];
  // Halves, deliveries or noise levels pooled (`all`) only where the clips differ in that respect:
  // otherwise the pooled rows repeat the one measured's.
  const varied = (of: (clip: ClipResult) => string) => new Set(result.clips.map(of)).size > 1;
  const pooled = {
    split: varied((c) => c.split),
    speakers: varied((c) => speakerSetOf(c.voice)),
    delivery: varied((c) => c.delivery),
    noise: varied((c) => c.noise),
  };
  const shown = result.summaries.filter(
    (summary) =>
      (summary.split !== "all" || pooled.split) &&
      (summary.speakers !== "all" || pooled.speakers) &&
      (summary.delivery !== "all" || pooled.delivery) &&
      (summary.noise !== "all" || pooled.noise),
  );
  for (const split of SPLIT_ORDER) {
    for (const speakers of SPEAKER_ORDER) {
      const of = shown.filter((summary) => summary.split === split && summary.speakers === speakers);
      if (of.length === 0) continue;
      // Each speaker on its own only per delivery and noise; pooled rows with the speakers pooled.
      const detail = of.filter(
        (summary) =>
          summary.voice === "all" ||
          (split !== "all" && summary.delivery !== "all" && summary.noise !== "all"),
      );
      lines.push(
        "",
        `${heading(result, split)}; ${speakers === "all" ? "all speakers" : `${speakers} speakers`}`,
        `${"speaker".padEnd(18)} ${"delivery".padEnd(9)} ${"noise".padEnd(5)} ${"clips".padStart(5)} ${"WER".padStart(6)}  ${"facts".padEnd(17)}  ${"records".padEnd(17)}  review`,
        ...ordered(detail).map(
          (summary) =>
            `${summary.voice.padEnd(18)} ${summary.delivery.padEnd(9)} ${summary.noise.padEnd(5)} ${String(summary.clips).padStart(5)} ${summary.wer.toFixed(3).padStart(6)}  ${tally(summary.facts).padEnd(17)}  ${tally(summary.records).padEnd(17)}  ${stated(summary.facts)}`,
        ),
      );
    }
  }
  lines.push(
    "",
    "facts by kind (speakers pooled)",
    `${"split".padEnd(8)} ${"speakers".padEnd(8)} ${"delivery".padEnd(9)} ${"noise".padEnd(5)} ${FACT_COLUMNS.map((kind) => kind.padEnd(17)).join(" ")}`,
    ...ordered(shown.filter((summary) => summary.voice === "all")).map(
      (summary) =>
        `${summary.split.padEnd(8)} ${summary.speakers.padEnd(8)} ${summary.delivery.padEnd(9)} ${summary.noise.padEnd(5)} ${FACT_COLUMNS.map((kind) => (byFact(summary, kind) ?? "-").padEnd(17)).join(" ")}`,
    ),
    "",
  );
  return lines.join("\n");
}

/** Rows by half, and within one the pooled (`all`) groups after the ones they pool. */
function ordered(summaries: readonly FactAccuracySummary[]): FactAccuracySummary[] {
  const rank = (summary: FactAccuracySummary) =>
    SPLIT_ORDER.indexOf(summary.split) * 100 +
    SPEAKER_ORDER.indexOf(summary.speakers) * 10 +
    [summary.voice, summary.delivery, summary.noise].filter((value) => value === "all").length;
  return [...summaries].sort((a, b) => rank(a) - rank(b));
}

/** A half's name, its scripts, and the facts the reasoner gets from their text (a perfect transcript). */
function heading(result: FactAccuracyResult, split: (typeof SPLIT_ORDER)[number]): string {
  if (split === "all") return "both halves";
  const scripts = new Set(result.clips.filter((clip) => clip.split === split).map((clip) => clip.script));
  const text = result.textReference[split];
  return `${split}: ${scripts.size} scripts; the reasoner on their text gets facts ${tally(text.facts)}, records ${tally(text.records)}`;
}

function byFact(summary: FactAccuracySummary, kind: FactKind): string | undefined {
  const of = summary.byFact[kind];
  return of && tally(of);
}

function tally({ right, total }: FactTally): string {
  return `${right}/${total} (${total === 0 ? "-" : `${((100 * right) / total).toFixed(1)}%`})`;
}

/** Facts held for review and facts stated wrongly, and how many of the stated ones are right. */
function stated({ right, held, statedWrong }: FactTally): string {
  const said = right + statedWrong;
  return `${held} held, ${statedWrong} wrong; stated ${said === 0 ? "-" : `${((100 * right) / said).toFixed(1)}%`} right`;
}
