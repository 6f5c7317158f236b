/**
 * Where the pipeline's time outside its engines goes (issue 42): the voicemails through
 * LocalRuntime with the simulated transcriber (`SimulatedTranscriber`: a fixed transcript, no
 * recogniser), the local reasoner and the local Sonic endpoint, at concurrency 2. Per voicemail
 * (mean over the jobs) it prints the time from the S3 event to the first state, each state's time
 * from entered to exited (the engines' share named apart), and the store calls made on the way to
 * the report (`job.endToEnd`), summed by operation and key folder (calls of two stages may
 * overlap, so the sums are each call's own wait, not a share of the wall time). The store is the
 * runtime's directory store, wrapped to time each call.
 *
 *   npx tsx bench/overhead-profile.ts [--voicemails 20] [--concurrency 2]
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/overhead-profile.ts   # and a CPU profile
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { JobReport, ObjectStore } from "@voxtrail/core";
import { LocalRuntime } from "@voxtrail/local";
import { DirectoryStore } from "@voxtrail/storage";
import { voicemailCopies } from "./voicemail-copies";

/** One store call: what, on which key, from when to when (performance.now(), ms). */
interface StoreCall {
  operation: string;
  key: string;
  start: number;
  end: number;
}

/** `store` with every call that returns a promise timed into `calls`. */
function timedStore(store: ObjectStore, calls: StoreCall[]): ObjectStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const start = performance.now();
        const result: unknown = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        const record = () =>
          calls.push({ operation: String(property), key: String(args[0]), start, end: performance.now() });
        return result.finally(record);
      };
    },
  });
}

/** The key's folder, and a lineage record's step (`lineage/<job>/ingest-01.json` is `lineage/ingest`). */
function folderOf(key: string): string {
  const [folder] = key.split("/");
  if (folder !== "lineage") return folder ?? key;
  return `lineage/${key
    .split("/")
    .at(-1)
    ?.replace(/-\d+\.json$/, "")}`;
}

/** The report's engine time: transcription, reasoning, the synthesis stream. */
function engineMs(report: JobReport): number {
  const timings = report.stages.flatMap((stage) => stage.timings);
  const ms = (name: string) => timings.find((timing) => timing.name === name)?.ms ?? 0;
  return ms("transcribe.engine") + ms("reason.engine") + ms("synthesize.total");
}

const { values } = parseArgs({
  options: {
    voicemails: { type: "string", default: "20" },
    concurrency: { type: "string", default: "2" },
  },
});
const scratch = await mkdtemp(join(tmpdir(), "voxtrail-overhead-profile-"));
try {
  const files = await voicemailCopies(Number(values.voicemails), join(scratch, "voicemails"));
  const calls: StoreCall[] = [];
  const runtime = await LocalRuntime.start({
    store: timedStore(new DirectoryStore({ root: join(scratch, "store") }), calls),
    providers: { transcriber: "simulated", reasoner: "local", synthesizer: "local" },
  });
  // Transitions carry wall-clock times; the report's event time too.
  const transitions: Array<{ file: string; label: string; at: number }> = [];
  const clockOffset = Date.now() - performance.now();
  calls.length = 0;
  const started = performance.now();
  const results = await runtime
    .run(files, {
      concurrency: Number(values.concurrency),
      onProgress: (progress) => {
        if (progress.type !== "stage") return;
        const { type, state, timestamp } = progress.transition;
        transitions.push({
          file: progress.file.name,
          label: `${type} ${state}`,
          at: timestamp - clockOffset,
        });
      },
    })
    .finally(() => runtime.close());
  const wallMs = performance.now() - started;
  const sums = new Map<string, number>();
  const add = (name: string, ms: number) => sums.set(name, (sums.get(name) ?? 0) + ms / results.length);
  for (const { file, jobId, report, status } of results) {
    if (!report) throw new Error(`${file.name}: ${status}, no report`);
    const eventAt = Date.parse(report.eventTime) - clockOffset;
    const endToEnd = report.timings.find((timing) => timing.name === "job.endToEnd")?.ms ?? 0;
    const end = eventAt + endToEnd;
    add("job.endToEnd", endToEnd);
    add("engines (transcribe.engine + reason.engine + synthesize.total)", engineMs(report));
    add("outside the engines", endToEnd - engineMs(report));
    let previous = { label: "S3 event", at: eventAt };
    for (const transition of transitions.filter((entry) => entry.file === file.name && entry.at <= end)) {
      add(`  ${previous.label} -> ${transition.label}`, transition.at - previous.at);
      previous = transition;
    }
    add(`  ${previous.label} -> report durable`, end - previous.at);
    for (const call of calls) {
      if (call.start < eventAt || call.start > end) continue;
      if (!(call.key.includes(jobId) || call.key.endsWith(file.name))) continue;
      add(`store ${call.operation} ${folderOf(call.key)}`, call.end - call.start);
      add("store, every call before the report", call.end - call.start);
    }
  }
  process.stdout.write(
    `${results.length} voicemails (simulated transcriber), concurrency ${values.concurrency}: ${(wallMs / 1000).toFixed(1)} s; mean ms per voicemail:\n`,
  );
  for (const [name, ms] of [...sums].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (ms >= 0.5) process.stdout.write(`${ms.toFixed(1).padStart(9)}  ${name}\n`);
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
