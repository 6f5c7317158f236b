import { fileURLToPath } from "node:url";

/** The voicemails shipped in the repository, processed when `voxtrail run` is given no files. */
export const BUNDLED_VOICEMAILS_DIR = fileURLToPath(new URL("../../../fixtures/voicemail/", import.meta.url));

/** The business records the local reasoner looks voicemails up in. */
export const BUNDLED_RECORDS_FILE = fileURLToPath(
  new URL("../../../fixtures/records/records.jsonl", import.meta.url),
);
