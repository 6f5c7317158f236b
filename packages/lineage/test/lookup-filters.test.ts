import { describe, expect, it } from "vitest";
import { emptyRows, type IndexRows } from "../src/edge-index/index-rows";
import { LineageIndexTampered } from "../src/edge-index/index-tampered";
import {
  dayFilterOf,
  encodeLookupFilters,
  type FilteredTable,
  parseLookupFilters,
} from "../src/edge-index/lookup-filters";

/** A day's rows holding `keys` as edge keys and `jobs` as records' jobs (the filtered columns). */
function rowsWith(keys: string[], jobs: string[]): IndexRows {
  const rows = emptyRows();
  for (const key of keys) rows.edges.push({ key } as IndexRows["edges"][number]);
  for (const job of jobs) rows.records.push({ job } as IndexRows["records"][number]);
  return rows;
}

const keysOf = (day: string, count: number) =>
  Array.from({ length: count }, (_, index) => `artifacts/vm-${day}-${index}/transcript.json`);
const jobsOf = (day: string, count: number) =>
  Array.from({ length: count }, (_, index) => `vm-${day}-${index}`);

describe("lookup filters", () => {
  it("keep every value of a day's rows, and rule out nearly all others", () => {
    const days = ["2026-01-01", "2026-01-02", "2026-01-03"];
    const filters = parseLookupFilters(
      encodeLookupFilters(
        Object.fromEntries(
          days.map((day) => [day, dayFilterOf(rowsWith(keysOf(day, 3000), jobsOf(day, 500)))]),
        ),
      ),
      "lineage-index/filters/g0.bin",
    );
    for (const day of days) {
      for (const key of keysOf(day, 3000)) expect(filters.daysWith("edges", key, days)).toContain(day);
      for (const job of jobsOf(day, 500)) expect(filters.daysWith("records", job, days)).toContain(day);
    }
    // Absent values, and a day's keys asked as jobs (each lookup is filtered apart).
    const absent: Array<[FilteredTable, string]> = keysOf("2026-02-01", 5000).map((key) => ["edges", key]);
    absent.push(...keysOf("2026-01-01", 3000).map((key): [FilteredTable, string] => ["records", key]));
    const held = absent.flatMap(([table, value]) => filters.daysWith(table, value, days));
    // About 1% a day by design; 3% allows for chance.
    expect(held.length / (absent.length * days.length)).toBeLessThan(0.03);
  });

  it("let every day hold every value where a day has no filter, or the file is for other lookups", () => {
    const days = ["2026-01-01", "2026-01-02"];
    const bytes = encodeLookupFilters({ "2026-01-01": dayFilterOf(rowsWith(["a"], ["vm-a"])) });
    const filters = parseLookupFilters(bytes, "k");
    expect(filters.daysWith("edges", "b", days)).toEqual(["2026-01-02"]);
    const line = bytes.indexOf(0x0a);
    const header = JSON.parse(bytes.subarray(0, line).toString("utf8")) as {
      lookups: string[];
      hashes: number;
    };
    for (const changed of [
      { ...header, lookups: ["edges.uri"] },
      { ...header, hashes: 3 },
    ]) {
      const read = parseLookupFilters(
        Buffer.concat([Buffer.from(JSON.stringify(changed)), bytes.subarray(line)]),
        "k",
      );
      expect(read.daysWith("edges", "b", days)).toEqual(days);
      expect(read.days).toEqual({});
    }
  });

  it("names the file when its bytes are not a filters file, or a filter lies past its end", () => {
    const past = JSON.stringify({ schemaVersion: 1, hashes: 7, lookups: [], days: { d: [0, 9] } });
    for (const bytes of [
      "not json\n",
      `${JSON.stringify({ schemaVersion: 2 })}\n`,
      `${past}\n12345678`,
      "{}",
    ]) {
      expect(() => parseLookupFilters(Buffer.from(bytes), "lineage-index/filters/g7.bin")).toThrow(
        new LineageIndexTampered(
          "the lineage index file lineage-index/filters/g7.bin is not a lookup filters file",
        ),
      );
    }
  });
});
