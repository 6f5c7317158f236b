import type {
  BusinessRecord,
  Entities,
  Processor,
  RecordLookup,
  RedactionTerms,
  ReferenceLengths,
} from "@voxtrail/core";
import { awsAccountBoundary } from "../aws/aws-account-boundary";
import { observeSdkCalls } from "../aws/sdk-calls";
import { JsonlRecordLookup, type MatchedOn } from "./jsonl-record-lookup";
import { readObjectText, readObjectTextIfChanged, type S3ObjectLocation } from "./s3-text-object";

/** The records read so far, and the ETag of the object version they came from. */
interface Loaded {
  index: JsonlRecordLookup;
  etag: string;
}

/** What {@link S3RecordLookup.processor} says for the version until the object has been read. */
export const UNREAD_RECORDS_VERSION = "not read yet";

/**
 * Business records from a JSON Lines object in S3, read on first use and then held in memory,
 * parsed and indexed exactly as {@link JsonlRecordLookup} does. Creating the lookup reads nothing:
 * the first `find`, `load` or `refresh` does one GetObject, so a function that never looks a record
 * up needs no access to the object. A failed read is not kept: the next use reads again.
 * The caller's entities never leave the process;
 * the records come from S3 in our account, so the boundary is `aws-account` (`s3`, the client's
 * region). The processor's version is the records' sha256 prefix, as for the local lookup
 * ({@link UNREAD_RECORDS_VERSION} until read: call `load()` before recording it), and its
 * endpoint the object's `s3://` URI.
 *
 * `refresh()` picks up a new version of the object with one conditional GET (`If-None-Match` with
 * the ETag held: 304, no body, while unchanged). A missing object is `ObjectNotFound`, a 403
 * `StoreAccessDenied`, a line that is not a business record `InvalidInput`, another S3 failure
 * `ReasoningFailed`.
 *
 * @example
 * const records = await S3RecordLookup.create({ client: new S3Client({}), bucket: "voxtrail-data", key: "records/records.jsonl" });
 * await records.find({ orderNumber: "4271" }); // reads the object now: { matchedOn: "orderNumber", record: { ... } }
 */
export class S3RecordLookup implements RecordLookup {
  readonly #location: S3ObjectLocation;
  readonly #boundary: Processor["boundary"];
  #loaded: Loaded | undefined;
  #loading: Promise<Loaded> | undefined;

  private constructor(location: S3ObjectLocation, boundary: Processor["boundary"]) {
    this.#location = location;
    this.#boundary = boundary;
    observeSdkCalls(location.client, "s3");
  }

  /** A lookup on the object; resolves the client's region for the boundary, and reads nothing yet. */
  static async create(location: S3ObjectLocation): Promise<S3RecordLookup> {
    return new S3RecordLookup(location, await awsAccountBoundary(location.client, "s3"));
  }

  /** What lineage records: the records in use now (their version changes after a refresh that found new ones). */
  get processor(): Processor {
    return {
      provider: "s3-records",
      model: "records.jsonl",
      version: this.#loaded?.index.processor.version ?? UNREAD_RECORDS_VERSION,
      endpoint: `s3://${this.#location.bucket}/${this.#location.key}`,
      boundary: this.#boundary,
    };
  }

  /** The ETag of the object version in use; `undefined` until it has been read. */
  get etag(): string | undefined {
    return this.#loaded?.etag;
  }

  /** Reads, parses and indexes the object unless it already has been (concurrent callers share one read). */
  async load(): Promise<void> {
    await this.#ensureLoaded();
  }

  /**
   * Re-reads the object if it changed since it was read; resolves whether it had. The first use
   * reads it (and resolves `true`).
   */
  async refresh(): Promise<boolean> {
    const loaded = this.#loaded;
    if (loaded === undefined) {
      await this.#ensureLoaded();
      return true;
    }
    const changed = await readObjectTextIfChanged(this.#location, loaded.etag);
    if (changed === undefined) return false;
    this.#loaded = { index: new JsonlRecordLookup(changed.text), etag: changed.etag };
    return true;
  }

  /** The first record matching the order number, else the account number, else the callback number. */
  async find(entities: Entities): Promise<{ matchedOn: MatchedOn; record: BusinessRecord } | undefined> {
    return (await this.#ensureLoaded()).index.find(entities);
  }

  /** The digits the records' order and account numbers have, read from the records now in use. */
  async numberLengths(): Promise<ReferenceLengths> {
    return (await this.#ensureLoaded()).index.referenceLengths();
  }

  /**
   * The records' numbers and callers' names, for the redactor: call `load()` first (Reason does);
   * before it, none.
   */
  redactionTerms(): RedactionTerms {
    return this.#loaded?.index.redactionTerms() ?? { numbers: [], names: [] };
  }

  #ensureLoaded(): Promise<Loaded> {
    if (this.#loaded !== undefined) return Promise.resolve(this.#loaded);
    this.#loading ??= this.#read().finally(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  async #read(): Promise<Loaded> {
    const { text, etag } = await readObjectText(this.#location);
    this.#loaded = { index: new JsonlRecordLookup(text), etag };
    return this.#loaded;
  }
}
