import { BadPromptRows, mapLimit, type ObjectStore, PromptResult, readJson } from "@voxtrail/core";
import type { PromptsProgress } from "@voxtrail/local";
import { promptKeys } from "@voxtrail/workflow";

/** How many result objects are read at once. */
const READ_CONCURRENCY = 16;

/**
 * Turns a prompts job's objects on a stage into progress events: the valid and bad rows' counts
 * once PreparePrompts has written them, then one event per result object as SynthesizePrompt or
 * RecordPromptFailure writes it (each read once).
 *
 * @example
 * const watcher = new PromptsWatcher(store, jobId, (event) => progress.update(event));
 * await watcher.look(); // tells what has appeared since the last look
 */
export class PromptsWatcher {
  #prepared = false;
  readonly #seen = new Set<string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly jobId: string,
    private readonly onProgress: ((progress: PromptsProgress) => void) | undefined,
  ) {}

  /** Tells the rows' counts (once) and the results written since the last look. */
  async look(): Promise<void> {
    if (!this.onProgress) return;
    if (!this.#prepared) {
      const [rows, bad] = await Promise.all([
        this.store.head(promptKeys.rows(this.jobId)),
        this.store.head(promptKeys.badRows(this.jobId)),
      ]);
      if (!rows || !bad) return;
      const rowCount = countLines(await this.store.getBytes(rows.key));
      const badRows = await readJson(this.store, bad.key, BadPromptRows);
      this.#prepared = true;
      this.onProgress({
        type: "prepared",
        jobId: this.jobId,
        rows: rowCount,
        badRows: badRows.length,
      });
    }
    const listed = await this.store.list(promptKeys.resultsPrefix(this.jobId));
    const fresh = listed.filter((key) => !this.#seen.has(key));
    for (const key of fresh) this.#seen.add(key);
    const results = await mapLimit(fresh, READ_CONCURRENCY, (key) => readJson(this.store, key, PromptResult));
    for (const { id, status } of results) this.onProgress({ type: "prompt", outcome: { id, status } });
  }
}

/** How many lines the JSON Lines body holds. */
function countLines(bytes: Buffer): number {
  let lines = 0;
  for (const byte of bytes) if (byte === 0x0a) lines += 1;
  return lines;
}
