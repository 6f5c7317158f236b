import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { ObjectNotFound, ReasoningFailed, StoreAccessDenied } from "@voxtrail/core";
import { sdkErrorFields } from "../aws/sdk-error-fields";

/** Where an S3 object is. */
export interface S3ObjectLocation {
  client: S3Client;
  bucket: string;
  key: string;
}

/** An S3 object's text and the ETag of the version it came from. */
export interface ObjectText {
  text: string;
  etag: string;
}

/**
 * Reads an S3 object as UTF-8 text with its ETag.
 *
 * A missing object (404) is {@link ObjectNotFound}; a 403 is {@link StoreAccessDenied}, never
 * "missing" (without `s3:ListBucket` S3 answers 403 for a missing key too); any other failure
 * {@link ReasoningFailed} (record lookups serve the Reason stage), naming the S3 error and status only.
 *
 * @example
 * const { text, etag } = await readObjectText({ client, bucket: "b", key: "records/records.jsonl" });
 */
export async function readObjectText(location: S3ObjectLocation): Promise<ObjectText> {
  return (await getText(location, undefined)) as ObjectText;
}

/**
 * Like {@link readObjectText}, but conditional on the ETag already held (`If-None-Match`): an
 * unchanged object answers 304, with no body transferred, and this resolves `undefined`.
 *
 * @example
 * const changed = await readObjectTextIfChanged(location, etag); // undefined while unchanged
 */
export function readObjectTextIfChanged(
  location: S3ObjectLocation,
  etag: string,
): Promise<ObjectText | undefined> {
  return getText(location, etag);
}

async function getText(
  location: S3ObjectLocation,
  ifNoneMatch: string | undefined,
): Promise<ObjectText | undefined> {
  const { client, bucket, key } = location;
  try {
    const response = await client.send(
      new GetObjectCommand({
        Bucket: bucket,
        Key: key,
        ...(ifNoneMatch === undefined ? {} : { IfNoneMatch: ifNoneMatch }),
      }),
    );
    if (response.Body === undefined || response.ETag === undefined) {
      throw new ReasoningFailed(`S3 GetObject of s3://${bucket}/${key} returned no body or no ETag`);
    }
    return { text: await response.Body.transformToString("utf-8"), etag: response.ETag };
  } catch (error) {
    const { name, status } = sdkErrorFields(error);
    if (status === 304 && ifNoneMatch !== undefined) return undefined;
    if (error instanceof ReasoningFailed) throw error;
    if (name === "NoSuchKey" || name === "NoSuchBucket") {
      throw new ObjectNotFound(`records object s3://${bucket}/${key} not found (${name})`);
    }
    if (status === 403) throw StoreAccessDenied.forRead("GetObject", key, { cause: error });
    throw new ReasoningFailed(
      `S3 GetObject of s3://${bucket}/${key} failed: ${name}${status === undefined ? "" : ` (status ${status})`}`,
    );
  }
}
