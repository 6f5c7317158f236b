import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StageSizingUnknown, stageSizing } from "../src/capacity/stage-sizing";
import { capacityCommand } from "../src/commands/capacity";
import { REPOSITORY_ROOT } from "../src/repository-root";
import { UsageError } from "../src/usage-error";

/** The capacity output docs/volume.md shows: the text between its markers, inside the fenced block. */
function readmeCapacity(): string {
  const readme = readFileSync(join(REPOSITORY_ROOT, "docs/volume.md"), "utf8");
  const match = /<!-- capacity:begin -->\n```text\n([\s\S]*?)```\n<!-- capacity:end -->/.exec(readme);
  if (!match?.[1]) throw new Error("docs/volume.md has no capacity block between its markers");
  return match[1];
}

describe("voxtrail capacity", () => {
  it("prints what docs/volume.md shows, for the default stage, and docs/deploy.md's table (moved from the README) is its table", () => {
    const printed = capacityCommand([], { json: false });
    expect(printed).toBe(readmeCapacity());
    const table = /\n(\| Volume[\s\S]*?\n)\n/.exec(printed)?.[1] ?? "no table";
    expect(readFileSync(join(REPOSITORY_ROOT, "docs/deploy.md"), "utf8")).toContain(table);
  });

  it("prints the plans and their inputs as JSON with --json", () => {
    const report = JSON.parse(capacityCommand([], { json: true, stage: "production" }));
    expect(report.file).toBe("config/stages/production.json");
    expect(report.sizing).toEqual({ instanceType: "ml.g6e.xlarge", minInstances: 2, maxInstances: 6 });
    expect(report.plans).toHaveLength(8);
    expect(report.parameters.generationsPerInstance.value).toBe(4);
  });

  it("refuses arguments, a name no stage can have, and a stage whose file does not size its endpoint", () => {
    expect(() => capacityCommand(["extra"], { json: false })).toThrow(UsageError);
    expect(() => capacityCommand([], { json: false, stage: "Prod!" })).toThrow(UsageError);
    expect(() => capacityCommand([], { json: false, stage: "dev" })).toThrow(StageSizingUnknown);
  });
});

describe("stageSizing", () => {
  it("reads the endpoint a stage file creates, without the model package ARN the shell would set", () => {
    const { sizing, file } = stageSizing("production", REPOSITORY_ROOT, {});
    expect(file).toBe("config/stages/production.json");
    expect(sizing).toEqual({ instanceType: "ml.g6e.xlarge", minInstances: 2, maxInstances: 6 });
  });

  it("reads the file VOXTRAIL_STAGE_CONFIG names instead", () => {
    const production = JSON.parse(
      readFileSync(join(REPOSITORY_ROOT, "config/stages/production.json"), "utf8"),
    );
    const file = join(mkdtempSync(join(tmpdir(), "voxtrail-capacity-")), "stage.json");
    writeFileSync(file, JSON.stringify({ ...production, sonic: { ...production.sonic, maxInstances: 10 } }));
    const { sizing } = stageSizing("staging", REPOSITORY_ROOT, { VOXTRAIL_STAGE_CONFIG: file });
    expect(sizing.maxInstances).toBe(10);
  });
});
