// A worker thread of verify's summary check (summary-copies.ts). It is sent batches of lineage
// summaries' bytes and answers, per summary, the sha256 of its bytes and, when every record it
// copies re-serialises as the recorder writes records (activity-recorder.ts: two-space JSON and
// a newline) to bytes with the sha256 the summary names for that record, the summary without its
// copies: such a copy is the record's own bytes, parsed. Any other summary (not JSON, an odd
// shape, a copy that is not byte for byte its record) is handed back whole, for the main thread's
// full check. Nothing here trusts a summary: it only sorts out the ones whose copies need no
// comparison. Plain JavaScript with Node's modules only: a worker gets no TypeScript loader.
import { createHash } from "node:crypto";
import { parentPort } from "node:worker_threads";

const sha256 = (data) => createHash("sha256").update(data).digest("hex");
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** The summary without its copies, or `undefined` when one of them is not its record's bytes. */
function outlineOf(json) {
  if (!isObject(json) || !Array.isArray(json.records)) return undefined;
  const { records, ...rest } = json;
  const entries = [];
  for (const entry of records) {
    if (!isObject(entry) || typeof entry.sha256 !== "string") return undefined;
    const { record, ...named } = entry;
    if (record === undefined || sha256(`${JSON.stringify(record, null, 2)}\n`) !== entry.sha256) {
      return undefined;
    }
    entries.push(named);
  }
  return { ...rest, records: entries };
}

function examine(buffer) {
  const bytes = Buffer.from(buffer);
  const hash = sha256(bytes);
  let outline;
  try {
    outline = outlineOf(JSON.parse(bytes.toString("utf8")));
  } catch {
    outline = undefined;
  }
  return outline ? { sha256: hash, outline } : { sha256: hash, bytes: buffer };
}

parentPort.on("message", ({ id, summaries }) => {
  const results = summaries.map(examine);
  const handedBack = results.flatMap((result) => (result.bytes ? [result.bytes] : []));
  parentPort.postMessage({ id, results }, handedBack);
});
