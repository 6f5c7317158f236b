import * as z from "zod/mini";
import { ArtifactRef } from "./artifact";
import type { AudioFormat } from "./audio-format";

/**
 * The audio formats a prompt row may ask for, by name. `telephony` (the default) is what Amazon
 * Connect plays: WAV, 8 kHz, mono, mu-law.
 */
export const PROMPT_FORMATS = {
  telephony: { encoding: "pcm_mulaw", sampleRate: 8000, channels: 1 },
  pcm16: { encoding: "pcm_s16le", sampleRate: 16000, channels: 1 },
} as const satisfies Record<string, AudioFormat>;
export type PromptFormatName = keyof typeof PROMPT_FORMATS;

/** The format a row gets when it names none. */
export const DEFAULT_PROMPT_FORMAT: PromptFormatName = "telephony";

/**
 * A valid manifest row, as `rows.jsonl` holds it and the Map hands it to `SynthesizePrompt`.
 * `rowHash` (sha256 of id, text, voice, language and format) is the prompt's identity: a rerun
 * skips a prompt whose result already succeeded with the same hash. The text is the operator's
 * prompt, not caller data, and is bounded by the provider's limit.
 */
export const PromptRow = z.object({
  line: z.number().check(z.int(), z.positive()),
  id: z.string(),
  text: z.string(),
  voice: z.optional(z.string()),
  language: z.optional(z.string()),
  format: z.enum(Object.keys(PROMPT_FORMATS) as [PromptFormatName, ...PromptFormatName[]]),
  rowHash: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
});
export type PromptRow = z.infer<typeof PromptRow>;

/** A manifest row that cannot become a prompt: its line, its id when readable, and the named reason. */
export const BadPromptRow = z.object({
  line: z.number().check(z.int(), z.positive()),
  id: z.optional(z.string()),
  error: z.string(),
  message: z.string(),
});
export type BadPromptRow = z.infer<typeof BadPromptRow>;

/** `bad-rows.json`: every bad row of a manifest, in line order. */
export const BadPromptRows = z.array(BadPromptRow);

/** How one prompt ended: written by `SynthesizePrompt` or `RecordPromptFailure` at `results/<id>.json`. */
export const PromptResult = z.object({
  id: z.string(),
  line: z.number().check(z.int(), z.positive()),
  rowHash: z.string(),
  status: z.enum(["succeeded", "failed"]),
  audio: z.optional(ArtifactRef),
  audioMs: z.optional(z.number().check(z.nonnegative())),
  /** Request sent -> first audio byte received (`synthesize.ttfb`). */
  ttfbMs: z.optional(z.number().check(z.nonnegative())),
  error: z.optional(z.object({ name: z.string(), message: z.string() })),
});
export type PromptResult = z.infer<typeof PromptResult>;

/** One prompt in the batch report: a result, or `not-run` when no result was recorded for its row. */
export const PromptReportEntry = z.object({
  id: z.string(),
  line: z.number().check(z.int(), z.positive()),
  status: z.enum(["succeeded", "failed", "not-run"]),
  key: z.optional(z.string()),
  bytes: z.optional(z.number().check(z.int(), z.nonnegative())),
  sha256: z.optional(z.string()),
  audioMs: z.optional(z.number().check(z.nonnegative())),
  ttfbMs: z.optional(z.number().check(z.nonnegative())),
  error: z.optional(z.object({ name: z.string(), message: z.string() })),
});
export type PromptReportEntry = z.infer<typeof PromptReportEntry>;

/** The batch report at `prompts/<jobId>/report.json`: every prompt, every bad row, and the totals. */
export const PromptsReport = z.object({
  schemaVersion: z.literal(1),
  jobId: z.string(),
  manifest: ArtifactRef,
  totals: z.object({
    rows: z.number().check(z.int(), z.nonnegative()),
    succeeded: z.number().check(z.int(), z.nonnegative()),
    failed: z.number().check(z.int(), z.nonnegative()),
    notRun: z.number().check(z.int(), z.nonnegative()),
    badRows: z.number().check(z.int(), z.nonnegative()),
    audioBytes: z.number().check(z.int(), z.nonnegative()),
    audioMs: z.number().check(z.nonnegative()),
  }),
  prompts: z.array(PromptReportEntry),
  badRows: z.array(BadPromptRow),
});
export type PromptsReport = z.infer<typeof PromptsReport>;
