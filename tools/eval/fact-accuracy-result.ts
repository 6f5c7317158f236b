import type { NOISE_SNR_DB } from "./accuracy-audio";
import type { Split } from "./accuracy-corpus";
import type { ClipResult, FactAccuracySummary } from "./fact-accuracy-summary";
import type { FactTally } from "./fact-scoring";

/** Everything measured, with the settings that decide it. */
export interface FactAccuracyResult {
  engine: string;
  snrDb: typeof NOISE_SNR_DB;
  /** Where the clips are kept. */
  audioDir: string;
  clips: ClipResult[];
  summaries: FactAccuracySummary[];
  /** The reasoner on each script's text (a perfect transcript), per half. */
  textReference: Record<Split, { facts: FactTally; records: FactTally }>;
  wallMs: number;
}
