import { S3Client } from "@aws-sdk/client-s3";
import { InvalidInput } from "@voxtrail/core";
import { choice, RECORD_LOOKUPS } from "@voxtrail/workflow";
import { S3RecordLookup } from "../records/s3-records";
import { type RoleBuilder, required } from "./provider-roles";

/**
 * The cloud record lookup a selection chose (`s3`), or `undefined` for the embedded one. `s3`
 * records are not read now but on their first use, so a function that never looks a record up
 * needs no access to them.
 *
 * @example
 * const records = await cloudRecords({ ...selection, records: "s3", recordsUri: "s3://bucket/records.jsonl" }, {});
 */
export const cloudRecords: RoleBuilder<"records"> = async (selection, clients) => {
  const records = choice(RECORD_LOOKUPS, selection.records, "records");
  if (records !== "s3") return undefined;
  return S3RecordLookup.create({
    client: clients.s3 ?? new S3Client({}),
    ...s3Location(required(selection.recordsUri, "recordsUri", "s3 records")),
  });
};

function s3Location(uri: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (match === null) throw new InvalidInput(`recordsUri must look like s3://bucket/key`);
  return { bucket: match[1] as string, key: match[2] as string };
}
