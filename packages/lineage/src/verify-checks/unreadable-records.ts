import type { VerifyCheck } from "./verify-check";

/** Records that could not be read or parsed (`unreadable-record`). */
export const unreadableRecords: VerifyCheck = {
  name: "unreadable-records",
  run: ({ graph }) =>
    graph.unreadable.map(({ key, problem }) => ({
      problem: "unreadable-record" as const,
      key,
      detail: `lineage record ${problem}`,
    })),
};
