import type { Entities, RecordLookup, RecordMatch } from "@voxtrail/core";

/** The entities a record lookup searches by, in the order it tries them. */
export const LOOKUP_ENTITIES = ["orderNumber", "accountNumber", "callbackNumber"] as const;

/**
 * Looks the voicemail's entities up in the business records: `found` with what matched, or
 * `not-found` naming the entities that were searched for (their names, not their values).
 *
 * @example
 * const match = await matchRecord({ orderNumber: "4271" }, records);
 * // { outcome: "found", matchedOn, record } or { outcome: "not-found", searchedFor: ["orderNumber"] }
 */
export async function matchRecord(entities: Entities, records: RecordLookup): Promise<RecordMatch> {
  const found = await records.find(entities);
  if (found !== undefined) return { outcome: "found", matchedOn: found.matchedOn, record: found.record };
  return {
    outcome: "not-found",
    searchedFor: LOOKUP_ENTITIES.filter((name) => entities[name] !== undefined),
  };
}
