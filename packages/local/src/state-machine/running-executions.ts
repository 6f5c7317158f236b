import { randomUUID } from "node:crypto";
import { type ExecutionLiveness, processAlive } from "@voxtrail/core";

/**
 * The local executions that are running, for duplicate-job claims. An execution ARN made here
 * carries the id of the process that runs it (`...:<pid>-<uuid>`): an execution of this process
 * runs while it is in the table; one of another process runs while that process is alive (two
 * `voxtrail run`s on one store); one whose process is gone (killed mid-batch) has ended, so a
 * rerun may claim its job again. A reused process id can make a dead execution look alive until
 * that process exits.
 *
 * @example
 * const running = new RunningExecutions();
 * const arn = running.start("voxtrail-voicemail");
 * await running.isRunning(arn); // true
 * running.end(arn);
 */
export class RunningExecutions implements ExecutionLiveness {
  readonly #running = new Set<string>();

  /** Makes the ARN of a new execution of `machineName` and records it as running. */
  start(machineName: string): string {
    const arn = `arn:aws:states:local:000000000000:execution:${machineName}:${process.pid}-${randomUUID()}`;
    this.#running.add(arn);
    return arn;
  }

  /** Records that the execution ended. */
  end(executionArn: string): void {
    this.#running.delete(executionArn);
  }

  async isRunning(executionArn: string): Promise<boolean> {
    if (this.#running.has(executionArn)) return true;
    const pid = Number(/:(\d+)-[0-9a-f-]+$/.exec(executionArn)?.[1]);
    return Number.isInteger(pid) && pid !== process.pid && processAlive(pid);
  }
}
