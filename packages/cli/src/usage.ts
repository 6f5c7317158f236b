/** The help text of the `voxtrail` command. */
export const USAGE = `voxtrail: event-driven voicemail pipeline, run locally on embedded engines

Usage:
  voxtrail run [FILE|DIR ...] [--store DIR] [--records FILE] [--concurrency N] [--json]
               [--synthesizer NAME] [--sonic-endpoint NAME] [--voice-id ID]
               [--transcriber NAME] [--reasoner NAME] [--reply-format NAME]
               [--boundary-policy ENV]
      Upload each voicemail under incoming/voicemail/ in the local store, deliver the S3
      "Object Created" event, and run the voicemail workflow. A directory contributes its .wav
      files. With no paths, processes the bundled fixtures. Exit code 1 if any job failed.
        --store DIR        local store standing in for the bucket (default .voxtrail)
        --records FILE     JSON Lines business records (default: bundled fixtures)
        --concurrency N    jobs in flight at once (default 2)
        --json             print the job results and reports as JSON on stdout
        --synthesizer NAME local (flite behind a local Sonic-compatible endpoint, the default),
                           sonic-sagemaker (InvokeEndpointWithResponseStream on --sonic-endpoint;
                           region, credentials and AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME from the
                           standard AWS configuration) or cartesia-api (needs CARTESIA_API_KEY)
        --sonic-endpoint NAME
                           the SageMaker endpoint serving Sonic (sonic-sagemaker)
        --voice-id ID      the Sonic voice of a cloud synthesizer (required with one)
        --transcriber NAME local (pocketsphinx, the default) or cartesia-ink (needs
                           CARTESIA_API_KEY)
        --reasoner NAME    local (rule-based, the default) or bedrock (Converse; the model from
                           VOXTRAIL_BEDROCK_MODEL_ID)
        --reply-format NAME
                           pcm16 (16 kHz mono 16-bit PCM WAV, the default) or telephony
                           (Amazon Connect prompts: 8 kHz mono mu-law WAV)
        --boundary-policy ENV
                           enforce config/boundary-policy/ENV.json (default local: data may
                           reach our AWS account, never a third party; dev admits Cartesia)
      A flag left out falls back to its environment variable (VOXTRAIL_SYNTHESIZER,
      VOXTRAIL_SONIC_ENDPOINT, VOXTRAIL_VOICE_ID, VOXTRAIL_TRANSCRIBER, VOXTRAIL_REASONER),
      as the Lambda functions read them.

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
