import {
  type ArtifactKind,
  type ArtifactRef,
  BoundaryViolation,
  describeRefusal,
  findRedactions,
  mergeTerms,
  type RecordLookup,
  type RedactionSettings,
  type RedactionTerms,
  redactTranscript,
  redactVoicemailRecord,
  sumCounts,
  type Transcript,
  termsOfRecord,
  type VoicemailRecord,
} from "@voxtrail/core";
import { ARTIFACT_FILES, keys, transcribeRedactedOutputKey, unredactedKey } from "@voxtrail/workflow";
import { putJsonArtifact } from "../artifacts";
import type { Activity } from "../kernel/activity-recorder";

/**
 * Where the Transcribe stage writes the transcript: the job's unredacted location when the stage
 * redacts (only Reason reads it), `transcript.json` otherwise.
 */
export function transcriptKey(redaction: RedactionSettings | undefined, jobId: string): string {
  return redaction
    ? unredactedKey(jobId, ARTIFACT_FILES.transcript)
    : keys.artifact(jobId, ARTIFACT_FILES.transcript);
}

/**
 * Which of Transcribe's output documents the read step reads: with output `redacted`, the only one
 * Transcribe wrote, its redacted transcript (`redacted-` before the file name); otherwise the one
 * at the job's output key (with `redacted_and_unredacted`, the unredacted transcript: Reason finds
 * the caller's record by the numbers in it, and our redactor writes what is stored outside).
 */
export function transcribeDocumentKey(redaction: RedactionSettings | undefined, outputKey: string): string {
  return redaction?.output === "redacted" ? transcribeRedactedOutputKey(outputKey) : outputKey;
}

/**
 * What the unredacted location may hold. `redacted_and_unredacted`: the transcript as heard.
 * `redacted`: what Amazon Transcribe's redacted output would hold, phone numbers removed (Transcribe's
 * `PHONE`), the order and account numbers kept for Reason to find the caller's record by (Transcribe's
 * PII types do not include them); names stay locally, where no Transcribe runs (docs/redaction.md).
 */
export function workingTranscript(
  transcript: Transcript,
  redaction: RedactionSettings | undefined,
): { transcript: Transcript; redacted: boolean; kinds: ReturnType<typeof sumCounts> } {
  if (redaction?.output !== "redacted") return { transcript, redacted: false, kinds: [] };
  const phones = redactTranscript(transcript, { numbers: [], names: [], minDigits: 7 });
  return { transcript: phones.transcript, redacted: true, kinds: phones.redactions };
}

/** The terms a Reason attempt redacts with: the records' numbers and names (when the lookup gives them). */
export function recordTerms(records: RecordLookup): RedactionTerms {
  return records.redactionTerms?.() ?? { numbers: [], names: [] };
}

/**
 * Reason's outputs as stored when the stage redacts: the record with the caller's data removed
 * (its reply as speech: "your order"), and the transcript redacted to `transcript.json`, recorded
 * on the activity (with what each output was redacted from and how many of each kind).
 */
export async function storeRedactedReasoning(options: {
  store: Parameters<typeof putJsonArtifact>[0];
  activity: Activity;
  jobId: string;
  transcript: Transcript;
  transcriptRef: ArtifactRef;
  record: VoicemailRecord;
  terms: RedactionTerms;
}): Promise<{ record: VoicemailRecord; note: (output: ArtifactRef) => void }> {
  const { store, activity, jobId, transcriptRef } = options;
  const terms = mergeTerms(options.terms, termsOfRecord(options.record));
  const redactedRecord = redactVoicemailRecord(options.record, terms, options.transcript.language);
  const redactedTranscript = redactTranscript(options.transcript, terms);
  const transcriptOut = await putJsonArtifact(
    store,
    "transcript",
    keys.artifact(jobId, ARTIFACT_FILES.transcript),
    redactedTranscript.transcript,
  );
  activity.outputs.push(transcriptOut);
  activity.redactions ??= [];
  activity.redactions.push({
    output: transcriptOut.key,
    from: transcriptRef.key,
    by: ["voxtrail-redactor"],
    kinds: redactedTranscript.redactions,
  });
  return {
    record: redactedRecord.record,
    // The record and the reply are redacted from the same transcript, once written.
    note: (output) =>
      activity.redactions?.push({
        output: output.key,
        from: transcriptRef.key,
        by: ["voxtrail-redactor"],
        kinds: redactedRecord.redactions,
      }),
  };
}

/**
 * The check before a send (docs/redaction.md): where the policy lets `kind` into the processor's
 * boundary only redacted, `text` must hold no number the redactor would remove (as digits or
 * words, a reference's length or longer). A text that does is refused before any byte is sent:
 * the attempt's decision records the flow as unredacted and refused, and the attempt fails with
 * `BoundaryViolation`. `language` is the text's (a Spanish "once" beside a number is one).
 */
export function requireRedactedBeforeSend(
  activity: Activity,
  kind: ArtifactKind,
  provider: string,
  text: string,
  language = "en",
): void {
  const decision = activity.policy;
  const flow = decision?.flows.find(
    (candidate) => candidate.kind === kind && candidate.provider === provider,
  );
  if (decision === undefined || flow?.redacted === undefined) return;
  const found = findRedactions(text, { numbers: [], names: [] }, language);
  if (found.length === 0) return;
  flow.redacted = false;
  flow.allowed = false;
  decision.outcome = "refused";
  throw new BoundaryViolation(
    `${describeRefusal(decision)}: it still holds ${sumCounts(
      found.map((span) => ({ kind: span.kind, count: 1 })),
    )
      .map((count) => `${count.count} ${count.kind}`)
      .join(", ")}`,
  );
}
