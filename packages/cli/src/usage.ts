/** The help text of the `voxtrail` command. */
export const USAGE = `voxtrail: event-driven voicemail pipeline, run locally on embedded engines

Usage:
  voxtrail run [FILE|DIR ...] [--store DIR] [--records FILE] [--concurrency N] [--json]
      Upload each voicemail under incoming/voicemail/ in the local store, deliver the S3
      "Object Created" event, and run the voicemail workflow. A directory contributes its .wav
      files. With no paths, processes the bundled fixtures. Exit code 1 if any job failed.
        --store DIR        local store standing in for the bucket (default .voxtrail)
        --records FILE     JSON Lines business records (default: bundled fixtures)
        --concurrency N    jobs in flight at once (default 2)
        --json             print the job results and reports as JSON on stdout

  voxtrail report [--job ID | --all] [--store DIR] [--json] [--html FILE]
      Latency from the raw samples in the store: per stage and timing, count, p50, p95, p99 and
      max (nearest rank); synthesis delivery (every gap between audio chunks, stalls, real-time
      factor); the slowest jobs, each with the stage furthest above its median; and the
      conditions (provider, model, version, input size, jobs in flight) behind the figures.
      Every job by default.
        --job ID           one job only (its lineage is the one drawn in --html)
        --all              every job with a report (the default)
        --json             print the report as JSON on stdout instead of text
        --html FILE        also write a self-contained page: percentile table, a waterfall per
                           job with the ttfb marked, and the lineage graph of the chosen job
                           (--job, else the slowest) as SVG

  voxtrail lineage <subcommand> [--store DIR | --bucket NAME] [--json]
      The auditor's questions, answered from the activity records alone. Reads the local store
      (--store DIR, default .voxtrail) or a bucket (--bucket NAME, standard AWS configuration).
        trace ARTIFACT     the chain back to the source audio: each step's activity, processor,
                           model/version, boundary, times and hashes (ARTIFACT: key, uri or sha256)
        impact SOURCE      every artifact derived from SOURCE: what an erasure must reach
        verify [--job ID]  re-hash every artifact and check every link; exit code 1 naming each
                           hash mismatch, missing artifact, artifact without lineage, broken chain
        boundaries [--since TIME]
                           which kinds of data entered which boundaries, counted per provider
        erase SOURCE       delete SOURCE and everything derived from it; leave an erasure record
                           (hashes, no content) under erasures/, which verify reports as erased
        export [--format openlineage] [--to datazone --domain ID]
                           NDJSON OpenLineage RunEvents (START, COMPLETE or FAIL per stage run)
                           on stdout, or posted to Amazon DataZone with PostLineageEvent

  voxtrail definition voicemail [--arn-prefix PREFIX]
      Print the workflow's Amazon States Language definition. Task resources are the local
      runtime's function ARNs, or PREFIX followed by the function name.

  voxtrail help
`;
