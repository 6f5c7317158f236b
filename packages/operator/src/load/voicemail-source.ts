import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseWav } from "@voxtrail/audio";
import { BUNDLED_VOICEMAILS_DIR } from "@voxtrail/local";
import { keys } from "@voxtrail/workflow";

/** One voicemail the load run uploads: its key, its bytes (shared between copies) and its audio's length. */
export interface LoadVoicemail {
  key: string;
  bytes: Uint8Array;
  audioMs: number;
}

/**
 * The load run's voicemails: copies of the bundled fixtures (fixtures/voicemail/*.wav, 16 kHz mono,
 * about 17 s each), taken in turn, each uploaded under its own key
 * (`incoming/voicemail/load-<n>-<fixture>.wav`), so every copy is a job of its own (a job's id
 * comes from its key).
 *
 * @example
 * const voicemails = await loadVoicemails(1000); // 1,000 keys over the 5 fixtures
 */
export async function loadVoicemails(count: number): Promise<LoadVoicemail[]> {
  const names = (await readdir(BUNDLED_VOICEMAILS_DIR)).filter((name) => name.endsWith(".wav")).sort();
  if (names.length === 0) throw new Error(`no voicemails in ${BUNDLED_VOICEMAILS_DIR}`);
  const fixtures = await Promise.all(
    names.map(async (name) => {
      const bytes = new Uint8Array(await readFile(join(BUNDLED_VOICEMAILS_DIR, name)));
      return { name, bytes, audioMs: parseWav(bytes).durationMs };
    }),
  );
  const width = String(count).length;
  return Array.from({ length: count }, (_, index) => {
    const fixture = fixtures[index % fixtures.length] as (typeof fixtures)[number];
    const key = keys.incomingVoicemail(`load-${String(index + 1).padStart(width, "0")}-${fixture.name}`);
    return { key, bytes: fixture.bytes, audioMs: fixture.audioMs };
  });
}
