import { choicesHelp } from "./choices-help";

/** The help text of the `voxtrail` command. */
export const USAGE = `voxtrail: event-driven voicemail pipeline, run locally on embedded engines

Usage:
  voxtrail run [FILE|DIR ...] [--store DIR] [--records FILE] [--concurrency N] [--json]
               [--synthesizer NAME] [--sonic-endpoint NAME] [--voice-id ID]
               [--transcriber NAME] [--reasoner NAME] [--reply-format NAME]
               [--boundary-policy ENV] [--redaction OUTPUT]
      Upload each voicemail under incoming/voicemail/ in the local store, deliver the S3
      "Object Created" event, and run the voicemail workflow. A directory contributes its .wav
      files. With no paths, processes the bundled fixtures. A job is one upload (bucket, key,
      version), claimed before any work: running the same files again skips the jobs already
      done and redoes the failed or interrupted ones. Ends by signing the lineage of its
      files' jobs (a digest, with the local key; also those an earlier run finished and was
      killed before signing), never another job. Exit code 1 unless every job
      is done; Ctrl-C (SIGINT) or SIGTERM records the attempts in flight as interrupted, signs
      the jobs that finished, removes their temp files, prints the command that resumes and
      exits 130 or 143.
        --store DIR        local store standing in for the bucket (default .voxtrail)
        --records FILE     JSON Lines business records (default: bundled fixtures)
        --concurrency N    jobs in flight at once (default 2)
        --json             print the job results and reports as JSON on stdout
        --synthesizer NAME ${choicesHelp("synthesizer")}
        --sonic-endpoint NAME
                           the SageMaker endpoint serving Sonic (sonic-sagemaker)
        --voice-id ID      the Sonic voice of a cloud synthesizer (required with one)
        --transcriber NAME ${choicesHelp("transcriber")}
        --reasoner NAME    ${choicesHelp("reasoner")}
        --reply-format NAME
                           pcm16 (16 kHz mono 16-bit PCM WAV, the default) or telephony
                           (Amazon Connect prompts: 8 kHz mono mu-law WAV)
        --boundary-policy ENV
                           enforce config/boundary-policy/ENV.json (default local: data may
                           reach our AWS account, never a third party; dev admits Cartesia)
        --redaction OUTPUT redacted or redacted_and_unredacted: store the callers' numbers and
                           names redacted, the transcript as heard only under
                           artifacts/<job>/unredacted/ (docs/redaction.md; default off)
      A flag left out falls back to its environment variable (VOXTRAIL_SYNTHESIZER,
      VOXTRAIL_SONIC_ENDPOINT, VOXTRAIL_VOICE_ID, VOXTRAIL_TRANSCRIBER, VOXTRAIL_REASONER),
      as the Lambda functions read them.

  voxtrail run --stage NAME FILE|DIR ... [--timeout SECONDS] [--json]
      Run on a deployed stage: read its resources from the SSM parameter /voxtrail/NAME/resources,
      upload each voicemail to the stage's bucket under incoming/voicemail/, find the Step
      Functions execution EventBridge starts for it, and follow it to its job report. Prints the
      same job lines and summary as a local run. Region, credentials and endpoints come from the
      standard AWS configuration (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_<SERVICE>). Exit code
      1 if any job failed or was still unfinished at the timeout.
        --timeout SECONDS  how long to wait for the jobs (default 28800: as long as an execution
                           may wait for a full Transcribe queue and throttled services)

  voxtrail prompts MANIFEST [--store DIR] [--concurrency N] [--json]
                  [--synthesizer NAME] [--sonic-endpoint NAME] [--voice-id ID]
                  [--boundary-policy ENV]
      Generate IVR prompts: put MANIFEST (CSV with a header row, or JSON Lines; fields id,
      text, and optionally voice, language, format) under incoming/prompts/ and run the
      prompts workflow. Each valid row becomes prompts/<jobId>/<id>.wav (format telephony,
      Amazon Connect's 8 kHz mono mu-law WAV, by default; or pcm16); each bad row is reported
      with its line and reason, and the others go on. The batch report is
      prompts/<jobId>/report.json. Running the same manifest again writes nothing for the
      prompts already done and redoes the failed ones; a run of a manifest already running
      elsewhere does nothing. Exit code 1 unless every row succeeded (130 or 143 when
      interrupted, as for run).
        --concurrency N    prompts synthesized at once: the Map's MaxConcurrency (default 2)
        --json             print the job result and report as JSON on stdout

  voxtrail prompts --stage NAME MANIFEST [--timeout SECONDS] [--json]
      Generate IVR prompts on a deployed stage: read its resources from the SSM parameter
      /voxtrail/NAME/resources (the stage must deploy the prompts workflow), upload MANIFEST to
      the stage's bucket under incoming/prompts/, find the Step Functions execution EventBridge
      starts for it, and follow it to prompts/<jobId>/report.json. Prints the same lines and
      summary as a local run; the audio stays in the bucket. Region, credentials and endpoints
      come from the standard AWS configuration. Exit code 1 unless every row succeeded.
        --timeout SECONDS  how long to wait for the job (default 900)

  voxtrail report [--job ID | --all] [--store DIR] [--json] [--html FILE | --cost [--stage NAME]]
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
        --cost             instead, the estimated AWS cost per 1,000 voicemails like these,
                           per stage, for Standard and Express workflows: Lambda GB-seconds,
                           state transitions, SageMaker instance seconds, Cartesia credits,
                           S3 requests, EventBridge events, at dated list prices; and the Sonic
                           endpoint's floor a day (minInstances x 24 instance-hours)
        --stage NAME       with --cost: price the Sonic endpoint config/stages/NAME.json deploys
                           (default production); a stage on an existing endpoint gives none

  voxtrail capacity [--stage NAME] [--json]
      For 1,000 to 1,000,000 voicemails a day, and a backfill of each size: the Sonic instances,
      the AWS quotas to raise (default -> needed), the drain time at the tightest stage, and the
      endpoint's instance-hours per 1,000 voicemails with its always-on floor (dollars only where
      the price is confirmed). Reads the endpoint's sizing from config/stages/NAME.json (default
      production), AWS's default quotas from @voxtrail/workflow's SERVICE_QUOTAS, and prints the
      model's parameters with their reasons. Makes no AWS call.
        --json             print the plans and their inputs as JSON

  voxtrail lineage <subcommand> [--store DIR | --bucket NAME | --stage NAME] [--engine ENGINE]
                  [--json]
      The auditor's questions, answered from the lineage records. Reads the local store
      (--store DIR, default .voxtrail) or a bucket (--bucket NAME, standard AWS configuration;
      --stage NAME: the deployed stage's bucket, read from its SSM parameter).
      trace, impact, boundaries and export read the lineage edge index when the store has one
      (Parquet under lineage-index/, queried with DuckDB, plus the summaries of jobs finished
      since it was compacted): the same answers as walking the records (--engine records).
      --engine athena --stage NAME (or --bucket NAME --database NAME --workgroup NAME) asks the
      stage's Athena workgroup instead (the Glue tables over the compacted index; jobs finished
      since the last compaction, every 15 minutes, are not in it yet).
        trace ARTIFACT     the chain back to the source audio: each step's activity, processor,
                           model/version, boundary, times and hashes (ARTIFACT: key, uri or sha256)
        impact SOURCE      every artifact derived from SOURCE: what an erasure must reach
        verify [--job ID] [--public-key FILE ...] [--kms-key-id ID] [--since TIME|last-digest]
                           re-hash every artifact and check every link, each record's chain link
                           and hash, and the signed lineage digests (with the keys named, or for
                           a local store this machine's signing key); exit code 1 naming each
                           hash mismatch, missing artifact, artifact without lineage, broken chain,
                           job source a later upload replaced, record changed, missing or
                           reordered, job deleted or added, summary changed, digest tampered,
                           and that the lineage index holds what the records give. --since
                           re-hashes only the artifacts of jobs after TIME (last-digest: the end
                           of the latest digest that verifies) or not signed as they are now.
                           With keys, a finished job no digest covers is a problem once older
                           than --grace SECONDS (a bucket: 7200, two runs of the stage's signer;
                           a local store: 0, as runs sign as they end, except the jobs of a run
                           still in progress); it prints the chain's head: keep it and give it
                           back as --expect-head SEQUENCE[:SHA256] to find the newest digests
                           deleted or replaced
        sign --job ID      sign one finished job of a local store that no run signed (its run
                           was killed before signing, and its file is not run again): you vouch
                           for it, after checking it
        repair-chain       re-sign a local store's digest chain from where two runs forked it
                           (before digests had sequences), with this machine's key: the digests
                           after the fork are kept under lineage-digest-repairs/ and one new
                           digest, naming them, covers their jobs again; refuses anything that
                           is not a fork
        boundaries [--since TIME]
                           which kinds of data entered which boundaries, counted per provider
        erase NAME         erase the whole chains NAME (key, uri or sha256) belongs to: each
                           job's own source version and every version of what it wrote (with
                           --bucket, its Amazon Transcribe jobs too); refuse a source key that
                           several callers' uploads share; in a local store, wait for a job a
                           run is still running; leave an erasure record (hashes and version
                           ids, no content) under erasures/, which verify reports
        export [--format openlineage] [--to datazone --domain ID]
                           NDJSON OpenLineage RunEvents (START, COMPLETE or FAIL per stage run)
                           on stdout, or posted to Amazon DataZone with PostLineageEvent
        reindex            rebuild the lineage edge index from the activity records (voxtrail
                           run and prompts bring it up to date as they end)

  voxtrail definition voicemail|prompts|batch [--arn-prefix PREFIX] [--concurrency N]
                  [--state-machine ARN] [--transcriber NAME]
      Print the workflow's Amazon States Language definition. Task resources are the local
      runtime's function ARNs, or PREFIX followed by the function name. With --transcriber
      amazon-transcribe, the voicemail definition starts, polls and reads a Transcribe job. The
      prompts definition's Map runs --concurrency prompts at once (default 2); the voicemail batch
      definition's Map runs --concurrency executions of the voicemail state machine ARN (a
      placeholder by default) at once.

  voxtrail version | voxtrail --version
      Print the CLI's version and the engines this machine has, found by lookup (never run):
      pocketsphinx_continuous, pocketsphinx_batch and the pocketsphinx-en-us model (with
      sphinx_fe, pocketsphinx_mdef_convert and sphinxtrain for its per-call adaptation), espeak-ng,
      festival's text2wave and ked voice, sox (where each is, its Debian package's version, or the
      sudo apt-get install command for what is missing), and the bundled flite's npm version.

  voxtrail help
`;
