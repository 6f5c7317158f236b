import { DescribeExecutionCommand, ListExecutionsCommand, type SFNClient } from "@aws-sdk/client-sfn";
import { InvalidInput } from "@voxtrail/core";
import { ObjectCreatedEvent, type SourceIdentity, sourceIdentityOf } from "@voxtrail/workflow";

/** An execution of the voicemail state machine that an S3 "Object Created" event started. */
export interface EventExecution {
  executionArn: string;
  startDate: Date;
  /** The uploaded object's identity as the execution's input event names it (as Ingest reads it). */
  source: SourceIdentity;
}

/**
 * Finds the executions EventBridge started for given uploads. In AWS an execution's name is
 * random, so the only link from an upload to its execution is the input: the S3 event, whose
 * bucket, key and version id (or ETag, in an unversioned bucket) name the upload.
 *
 * Each {@link refresh} lists the state machine's executions newest first, down to the first one
 * started before `since` (ListExecutions is eventually consistent: an execution may show up after
 * a newer one), and describes only those it has not seen before.
 *
 * @example
 * const finder = new ExecutionFinder(new SFNClient({}), stateMachineArn, new Date(Date.now() - 60_000));
 * await finder.refresh();
 * finder.executionsFor({ bucket, key, versionId }); // [] until EventBridge has started it
 */
export class ExecutionFinder {
  /** Every execution seen, by ARN: its source, or `undefined` when its input is no S3 event. */
  readonly #seen = new Map<string, EventExecution | undefined>();

  constructor(
    private readonly sfn: SFNClient,
    private readonly stateMachineArn: string,
    private readonly since: Date,
  ) {}

  /** Looks for executions started since `since` that it has not seen yet. */
  async refresh(): Promise<void> {
    let nextToken: string | undefined;
    do {
      const page = await this.sfn.send(
        new ListExecutionsCommand({ stateMachineArn: this.stateMachineArn, nextToken }),
      );
      for (const { executionArn, startDate } of page.executions ?? []) {
        if (!executionArn || !startDate) continue;
        if (startDate < this.since) return;
        if (this.#seen.has(executionArn)) continue;
        this.#seen.set(executionArn, await this.#describe(executionArn, startDate));
      }
      nextToken = page.nextToken;
    } while (nextToken);
  }

  /** The executions seen whose input event names `upload`, first started first. */
  executionsFor(upload: SourceIdentity): EventExecution[] {
    return [...this.#seen.values()]
      .filter((execution): execution is EventExecution => execution !== undefined)
      .filter((execution) => sameObject(upload, execution.source))
      .sort((a, b) => a.startDate.getTime() - b.startDate.getTime());
  }

  async #describe(executionArn: string, startDate: Date): Promise<EventExecution | undefined> {
    const { input } = await this.sfn.send(new DescribeExecutionCommand({ executionArn }));
    let json: unknown;
    try {
      json = JSON.parse(input ?? "");
    } catch {
      return undefined;
    }
    const event = ObjectCreatedEvent.safeParse(json);
    if (!event.success) return undefined;
    try {
      return { executionArn, startDate, source: sourceIdentityOf(event.data) };
    } catch (error) {
      // Another upload's event whose key is not valid form encoding names none of ours: its own
      // execution fails in Ingest, named; following ours goes on.
      if (error instanceof InvalidInput) return undefined;
      throw error;
    }
  }
}

/** Whether the event's object is the upload: same bucket and key, and same version (or ETag). */
function sameObject(upload: SourceIdentity, event: SourceIdentity): boolean {
  if (upload.bucket !== event.bucket || upload.key !== event.key) return false;
  if (upload.versionId !== undefined) return event.versionId === upload.versionId;
  return unquoted(event.etag) === unquoted(upload.etag);
}

function unquoted(etag: string | undefined): string | undefined {
  return etag?.replaceAll('"', "");
}
