import { parquetWriteBuffer } from "hyparquet-writer";
import { describe, expect, it } from "vitest";
import { readTableParquet, tableParquet } from "../src/edge-index/index-tables";

const FLOW = {
  job: "vm-1",
  record_key: "lineage/vm-1/records/Synthesize-1.json",
  started_at: "2026-12-01T10:00:00.000Z",
  kind: "reply-text",
  boundary: "third-party:api.cartesia.ai",
  boundary_json: '{"kind":"third-party","host":"api.cartesia.ai"}',
  provider: "cartesia-api",
  source: "policy-decision",
  entered: 1,
  refused: 0,
};

describe("the flows table's redacted column", () => {
  it("is written and read back", async () => {
    const row = { ...FLOW, redacted: "true" as const };
    expect(await readTableParquet("flows", tableParquet("flows", [row]))).toEqual([row]);
  });

  it("reads as '' from a file indexed before the column existed, so compaction can rewrite it", async () => {
    const { entered, refused, ...strings } = FLOW;
    const columnData = [
      ...Object.entries(strings).map(([name, value]) => ({
        name,
        type: "STRING" as const,
        nullable: false,
        data: [value],
      })),
      { name: "entered", type: "INT32" as const, nullable: false, data: [entered] },
      { name: "refused", type: "INT32" as const, nullable: false, data: [refused] },
    ];
    const old = new Uint8Array(parquetWriteBuffer({ columnData }));
    expect(await readTableParquet("flows", old)).toEqual([{ ...FLOW, redacted: "" }]);
  });
});
