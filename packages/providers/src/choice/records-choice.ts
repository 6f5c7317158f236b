import { S3Client } from "@aws-sdk/client-s3";
import { InvalidInput } from "@voxtrail/core";
import type { CloudProviderName } from "@voxtrail/workflow";
import { S3RecordLookup } from "../records/s3-records";
import { type NamedBuilder, namedRoleBuilder } from "./named-builders";
import { required } from "./provider-roles";

/** The builder of each cloud record lookup `PROVIDER_REGISTRY` declares. */
const RECORDS_BUILDERS: Record<CloudProviderName<"records">, NamedBuilder<"records">> = {
  s3: async (selection, clients) =>
    S3RecordLookup.create({
      client: clients.s3 ?? new S3Client({}),
      ...s3Location(required(selection.recordsUri, "recordsUri", "s3 records")),
    }),
};

/**
 * The cloud record lookup a selection chose (`s3`), or `undefined` for the embedded one. `s3`
 * records are not read now but on their first use, so a function that never looks a record up
 * needs no access to them.
 *
 * @example
 * const records = await cloudRecords({ ...selection, records: "s3", recordsUri: "s3://bucket/records.jsonl" }, {});
 */
export const cloudRecords = namedRoleBuilder("records", RECORDS_BUILDERS);

function s3Location(uri: string): { bucket: string; key: string } {
  const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(uri);
  if (match === null) throw new InvalidInput(`recordsUri must look like s3://bucket/key`);
  return { bucket: match[1] as string, key: match[2] as string };
}
