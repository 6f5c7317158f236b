/**
 * Transcription accuracy: the embedded transcriber (Debian pocketsphinx) on every bundled
 * voicemail, as the caller spoke it (16 kHz PCM) and as a telephone network delivers it (8 kHz
 * mu-law, normalized to 16 kHz as the Transcribe stage does), scored against
 * fixtures/voicemail/scripts.json. The unit test checks a ceiling on one voicemail only; the
 * figures for the whole set live here, where the time they take does not decide a pass.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { normalizeForTranscription } from "@voxtrail/audio";
import { Transcript } from "@voxtrail/core";
import { countWordErrors, PocketsphinxTranscriber } from "@voxtrail/providers";

const VOICEMAILS = fileURLToPath(new URL("../../fixtures/voicemail/", import.meta.url));

/** How the audio reached the transcriber. */
export type Delivery = "wideband" | "telephony";

/** One voicemail in one delivery. */
export interface WerRow {
  voicemail: string;
  delivery: Delivery;
  referenceWords: number;
  errors: number;
  wer: number;
  /** Transcription time / audio duration. */
  realTimeFactor: number;
}

/** Every row, and the word error rate over all voicemails per delivery. */
export interface TranscriptionWerResult {
  engine: string;
  rows: WerRow[];
  corpusWer: Record<Delivery, number>;
  /** Telephony corpus WER / wideband corpus WER. */
  ratio: number;
}

/** Transcribes each bundled voicemail in both deliveries, one at a time. */
export async function benchTranscriptionWer(
  options: { log?: (line: string) => void } = {},
): Promise<TranscriptionWerResult> {
  const scripts = JSON.parse(await readFile(join(VOICEMAILS, "scripts.json"), "utf8")) as Record<
    string,
    string
  >;
  const transcriber = new PocketsphinxTranscriber();
  const rows: WerRow[] = [];
  for (const delivery of ["wideband", "telephony"] as const) {
    for (const [voicemail, script] of Object.entries(scripts)) {
      const file = join(VOICEMAILS, delivery === "wideband" ? "" : "telephony", `${voicemail}.wav`);
      const { wav, durationMs } = normalizeForTranscription(await readFile(file));
      const started = performance.now();
      const transcript = Transcript.parse(await transcriber.transcribe(wav, { language: "en" }));
      const elapsedMs = performance.now() - started;
      const counts = countWordErrors(script, transcript.text);
      const errors = counts.substitutions + counts.deletions + counts.insertions;
      rows.push({
        voicemail,
        delivery,
        referenceWords: counts.referenceWords,
        errors,
        wer: errors / counts.referenceWords,
        realTimeFactor: elapsedMs / durationMs,
      });
      options.log?.(`wer: ${delivery} ${voicemail} ${(errors / counts.referenceWords).toFixed(3)}`);
    }
  }
  const corpus = (delivery: Delivery) => {
    const of = rows.filter((row) => row.delivery === delivery);
    const words = of.reduce((sum, row) => sum + row.referenceWords, 0);
    return of.reduce((sum, row) => sum + row.errors, 0) / words;
  };
  const corpusWer = { wideband: corpus("wideband"), telephony: corpus("telephony") };
  return {
    engine: transcriber.processor.model,
    rows,
    corpusWer,
    ratio: corpusWer.telephony / corpusWer.wideband,
  };
}
