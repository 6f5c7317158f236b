import { resolve } from "node:path";
import { TranscribeClient } from "@aws-sdk/client-transcribe";
import {
  boundaries,
  erase,
  impact,
  jobIdOfArtifactName,
  LineageGraph,
  openLineageEvents,
  openLineageStore,
  postToDataZone,
  readLineage,
  trace,
  transcribeJobDeleter,
  verify,
} from "@voxtrail/lineage";
import { boundariesTable, erasureReport, impactTable, traceTree, verifyReport } from "../lineage-views";
import { trustedKeys } from "../trusted-keys";
import { UsageError } from "../usage-error";

/** Options of `voxtrail lineage`. */
export interface LineageOptions {
  store: string;
  bucket?: string | undefined;
  job?: string | undefined;
  since?: string | undefined;
  format?: string | undefined;
  to?: string | undefined;
  domain?: string | undefined;
  "public-key"?: string[] | undefined;
  "kms-key-id"?: string | undefined;
  json: boolean;
}

const SUBCOMMANDS = ["trace", "impact", "verify", "boundaries", "erase", "export"] as const;

/**
 * `voxtrail lineage <trace|impact|verify|boundaries|erase|export>`: the auditor's questions, asked
 * of the local store (`--store DIR`) or a bucket (`--bucket NAME`). Readable tables and trees on
 * stdout, or JSON with `--json`. Resolves to the exit code: `verify` returns 1 when it finds problems.
 */
export async function lineageCommand(positionals: string[], options: LineageOptions): Promise<number> {
  const [sub, target, ...extra] = positionals;
  if (!SUBCOMMANDS.includes(sub as (typeof SUBCOMMANDS)[number])) {
    throw new UsageError(`lineage needs one of ${SUBCOMMANDS.join(", ")}; got ${JSON.stringify(sub ?? "")}`);
  }
  const needsTarget = sub === "trace" || sub === "impact" || sub === "erase";
  if (needsTarget && target === undefined)
    throw new UsageError(`lineage ${sub} needs an artifact (key, uri or sha256)`);
  if (extra.length > 0 || (!needsTarget && target !== undefined)) {
    throw new UsageError(
      `lineage ${sub}: unexpected argument ${JSON.stringify(needsTarget ? extra[0] : target)}`,
    );
  }
  if (options.since !== undefined && Number.isNaN(Date.parse(options.since))) {
    throw new UsageError(`--since must be an ISO 8601 time, got ${JSON.stringify(options.since)}`);
  }
  const store = openLineageStore(
    options.bucket ? { bucket: options.bucket } : { dir: resolve(options.store) },
  );
  // A trace of a job's artifact needs that job's records only; everything else reads them all.
  const jobId =
    sub === "verify" ? options.job : sub === "trace" ? jobIdOfArtifactName(target as string) : undefined;
  const started = performance.now();
  // verify checks the records themselves, and erase deletes by them; the other questions may take
  // each finished job's records from its lineage summary (one read per job instead of one per record).
  const from = sub === "verify" || sub === "erase" ? "records" : "summaries";
  const graph = LineageGraph.of(await readLineage(store, { ...(jobId ? { jobId } : {}), from }));
  const out = (json: unknown, text: () => string) =>
    process.stdout.write(options.json ? `${JSON.stringify(json, null, 2)}\n` : `${text()}\n`);

  switch (sub) {
    case "trace": {
      const tree = trace(graph, target as string);
      out(tree, () => traceTree(tree).trimEnd());
      return 0;
    }
    case "impact": {
      const result = impact(graph, target as string);
      out(result, () => impactTable(result));
      return 0;
    }
    case "verify": {
      const trusted = await trustedKeys({
        publicKeys: options["public-key"],
        kmsKeyId: options["kms-key-id"],
        local: options.bucket === undefined,
      });
      const result = await verify(store, graph, {
        ...(jobId ? { jobId } : {}),
        ...(trusted.keys.length > 0 ? { trustedKeys: trusted.keys } : {}),
      });
      out({ ...result, trustedKeys: trusted.from }, () =>
        [verifyReport(result, trusted.from), `(${Math.round(performance.now() - started)} ms)`].join("\n"),
      );
      return result.ok ? 0 : 1;
    }
    case "boundaries": {
      const rows = boundaries(graph, options.since ? { since: options.since } : {});
      out(rows, () => boundariesTable(rows));
      return 0;
    }
    case "erase": {
      // In a bucket, the chain's Transcribe jobs are deleted too; a local store's stand-in jobs
      // ended with their run.
      const result = await erase(store, graph, target as string, {
        ...(options.bucket ? { deleteServiceJob: transcribeJobDeleter(new TranscribeClient({})) } : {}),
      });
      out(result, () => erasureReport(result));
      return 0;
    }
    default:
      return exportEvents(graph, store.bucket, options);
  }
}

/** `lineage export`: NDJSON OpenLineage RunEvents on stdout, or posted to Amazon DataZone. */
async function exportEvents(graph: LineageGraph, bucket: string, options: LineageOptions): Promise<number> {
  if ((options.format ?? "openlineage") !== "openlineage") {
    throw new UsageError(`--format must be openlineage, got ${JSON.stringify(options.format)}`);
  }
  const events = openLineageEvents(graph, { bucket });
  if (options.to === undefined) {
    for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
    return 0;
  }
  if (options.to !== "datazone")
    throw new UsageError(`--to must be datazone, got ${JSON.stringify(options.to)}`);
  if (!options.domain) throw new UsageError("--to datazone needs --domain ID");
  const result = await postToDataZone(options.domain, events);
  process.stdout.write(
    options.json
      ? `${JSON.stringify(result, null, 2)}\n`
      : `posted ${result.posted.length} event(s) to DataZone domain ${result.domainId}\n`,
  );
  return 0;
}
