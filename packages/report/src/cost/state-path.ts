import type { AslDefinition } from "@voxtrail/workflow";

/**
 * The states an execution of `definition` enters, in order: from `StartAt` along each state's
 * `Next` (a Choice's `Default`: the voicemail definition's only Choice sends a duplicate delivery
 * elsewhere, which is not a job), or, at the Task state named `failedAt`, along its first `Catch`
 * (the recorder, then the Fail state). What Standard workflows bill is one transition per state
 * entered, plus one per retry.
 *
 * @example
 * statePath(definition); // ["Ingest", "IsDuplicate", "Transcribe", ..., "Finalize"]
 * statePath(definition, "Reason"); // [..., "Reason", "RecordReasonFailure", "ReasonFailed"]
 */
export function statePath(definition: AslDefinition, failedAt?: string): string[] {
  const path: string[] = [];
  let name: string | undefined = definition.StartAt;
  while (name !== undefined) {
    if (path.includes(name)) throw new Error(`the definition loops back to ${name}`);
    const state: Record<string, unknown> | undefined = definition.States[name];
    if (!state) throw new Error(`the definition has no state ${name}`);
    path.push(name);
    const catchers = state.Catch as Array<{ Next: string }> | undefined;
    name =
      name === failedAt && catchers?.[0]
        ? catchers[0].Next
        : ((state.Next ?? state.Default) as string | undefined);
  }
  return path;
}
