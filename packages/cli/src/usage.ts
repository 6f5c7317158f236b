/** The help text of the `voxtrail` command. */
export const USAGE = `voxtrail: event-driven voicemail pipeline, run locally on embedded engines

Usage:
  voxtrail run [FILE|DIR ...] [--store DIR] [--concurrency N] [--json]
      Upload each voicemail under incoming/voicemail/ in the local store, deliver the S3
      "Object Created" event, and run the voicemail workflow. A directory contributes its .wav
      files. With no paths, processes the bundled fixtures. Exit code 1 if any job failed.
        --store DIR        local store standing in for the bucket (default .voxtrail)
        --records FILE     JSON Lines business records (default: bundled fixtures)
        --concurrency N    jobs in flight at once (default 2)
        --json             print the job results and reports as JSON on stdout

  voxtrail definition voicemail [--arn-prefix PREFIX]
      Print the workflow's Amazon States Language definition. Task resources are the local
      runtime's function ARNs, or PREFIX followed by the function name.

  voxtrail help
`;
