import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { RunningExecutions } from "../src/state-machine/running-executions";

describe("RunningExecutions", () => {
  it("counts this process's executions as running until they end", async () => {
    const running = new RunningExecutions();
    const arn = running.start("voxtrail-voicemail");
    expect(arn).toMatch(new RegExp(`:execution:voxtrail-voicemail:${process.pid}-[0-9a-f-]{36}$`));
    expect(await running.isRunning(arn)).toBe(true);
    running.end(arn);
    expect(await running.isRunning(arn)).toBe(false);
  });

  it("counts another process's execution as running while that process lives", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    await once(child, "spawn");
    const arn = `arn:aws:states:local:000000000000:execution:voxtrail-voicemail:${child.pid}-00000000-0000-4000-8000-000000000000`;
    const running = new RunningExecutions();
    expect(await running.isRunning(arn)).toBe(true);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(await running.isRunning(arn)).toBe(false);
  });
});
