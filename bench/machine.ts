import { availableParallelism, cpus, loadavg, totalmem } from "node:os";

/** What a benchmark ran on: quoted with every figure, since figures mean little without it. */
export interface Machine {
  date: string;
  nproc: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  platform: string;
  /** One-minute load average when the run began: the machine is shared. */
  loadAverage: number;
}

/** The machine this process runs on, now. */
export function describeMachine(): Machine {
  return {
    date: new Date().toISOString(),
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? "unknown",
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
}
