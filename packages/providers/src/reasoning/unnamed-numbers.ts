import type { Entities, RecordLookup } from "@voxtrail/core";

/** The kinds a number with no cue may be, as the records index them. */
const REFERENCE_KINDS = ["orderNumber", "accountNumber"] as const;
type ReferenceKind = (typeof REFERENCE_KINDS)[number];

/**
 * `entities` with each number no word named ({@link EntityReading.unnamed}) placed by the records:
 * the first reading of it that the records hold as an order number and not as an account number
 * (or the other way round) becomes that entity, unless the caller's words already gave one of
 * that kind. A reading the records hold as both kinds stops the search: the words cannot tell
 * which, so the number stays unplaced rather than guessed. Among unnamed numbers the last one
 * placed wins, as the caller's last mention does ("... four four oh nine, sorry, four four one
 * nine").
 *
 * This recovers a number whose cue the recogniser lost ("my phone number is four four oh nine"
 * for "my account number is ..."). It leans on the records being sparse: where most numbers of a
 * length are someone's order or account, a misheard number finds a wrong record as readily.
 *
 * @example
 * await kindsFromRecords({ callbackNumber: "5551234567" }, [["73164", "7316"]], records);
 * // { callbackNumber: "5551234567", orderNumber: "7316" }
 */
export async function kindsFromRecords(
  entities: Entities,
  unnamed: readonly (readonly string[])[],
  records: RecordLookup,
): Promise<Entities> {
  const placed: Entities = {};
  for (const readings of unnamed) {
    for (const digits of readings) {
      const kinds = await heldAs(digits, records);
      const [kind] = kinds;
      if (kinds.length > 1) break;
      if (kind === undefined) continue;
      if (entities[kind] === undefined) placed[kind] = digits;
      break;
    }
  }
  return { ...entities, ...placed };
}

/** The reference kinds under which the records hold `digits`. */
async function heldAs(digits: string, records: RecordLookup): Promise<ReferenceKind[]> {
  const kinds: ReferenceKind[] = [];
  for (const kind of REFERENCE_KINDS) {
    if ((await records.find({ [kind]: digits }))?.matchedOn === kind) kinds.push(kind);
  }
  return kinds;
}
