import type { BusinessRecord, Entities, Processor, RecordLookup } from "@voxtrail/core";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { observeSdkCalls } from "../aws/sdk-calls";
import { JsonlRecordLookup, type MatchedOn } from "./jsonl-record-lookup";
import { readObjectText, readObjectTextIfChanged, type S3ObjectLocation } from "./s3-text-object";

/**
 * Business records from a JSON Lines object in S3, read once and held in memory, parsed and
 * indexed exactly as {@link JsonlRecordLookup} does. The caller's entities never leave the process;
 * the records come from S3 in our account, so the boundary is `aws-account` (`s3`, the client's
 * region). The processor's version is the records' sha256 prefix, as for the local lookup, and its
 * endpoint the object's `s3://` URI.
 *
 * `refresh()` picks up a new version of the object with one conditional GET (`If-None-Match` with
 * the ETag held: 304, no body, while unchanged). A missing object is `ObjectNotFound`, a line that is
 * not a business record `InvalidInput`, another S3 failure `ReasoningFailed`.
 *
 * @example
 * const records = await S3RecordLookup.open({ client: new S3Client({}), bucket: "voxtrail-data", key: "records/records.jsonl" });
 * await records.find({ orderNumber: "4271" }); // { matchedOn: "orderNumber", record: { ... } }
 */
export class S3RecordLookup implements RecordLookup {
  readonly #location: S3ObjectLocation;
  readonly #boundary: Processor["boundary"];
  #index: JsonlRecordLookup;
  #etag: string;

  private constructor(
    location: S3ObjectLocation,
    boundary: Processor["boundary"],
    index: JsonlRecordLookup,
    etag: string,
  ) {
    this.#location = location;
    this.#boundary = boundary;
    this.#index = index;
    this.#etag = etag;
    observeSdkCalls(location.client, "s3");
  }

  /** Reads, parses and indexes the object. */
  static async open(location: S3ObjectLocation): Promise<S3RecordLookup> {
    const boundary = await awsAccountBoundary(location.client, "s3");
    const { text, etag } = await readObjectText(location);
    return new S3RecordLookup(location, boundary, new JsonlRecordLookup(text), etag);
  }

  /** What lineage records: the records in use now (their version changes after a refresh that found new ones). */
  get processor(): Processor {
    return {
      provider: "s3-records",
      model: this.#index.processor.model,
      version: this.#index.processor.version,
      endpoint: `s3://${this.#location.bucket}/${this.#location.key}`,
      boundary: this.#boundary,
    };
  }

  /** The ETag of the object version in use. */
  get etag(): string {
    return this.#etag;
  }

  /** Re-reads the object if it changed since it was read; resolves whether it had. */
  async refresh(): Promise<boolean> {
    const changed = await readObjectTextIfChanged(this.#location, this.#etag);
    if (changed === undefined) return false;
    this.#index = new JsonlRecordLookup(changed.text);
    this.#etag = changed.etag;
    return true;
  }

  /** The first record matching the order number, else the account number, else the callback number. */
  find(entities: Entities): Promise<{ matchedOn: MatchedOn; record: BusinessRecord } | undefined> {
    return this.#index.find(entities);
  }
}
