import Cartesia from "@cartesia/cartesia-js";
import { type Boundary, builtOnce } from "@voxtrail/core";
import type { SecretSource } from "@voxtrail/workflow";

/** Cartesia's public API. */
export const CARTESIA_API_URL = "https://api.cartesia.ai";

/** How to reach Cartesia's API. */
export interface CartesiaConnectionOptions {
  /** The API key. It is sent only in the `Authorization` header, never logged or put in an error. */
  apiKey: SecretSource;
  /**
   * Where the API is; {@link CARTESIA_API_URL} by default. Set explicitly rather than read from
   * `CARTESIA_BASE_URL`, so that the declared boundary is the host the data really goes to.
   */
  baseURL?: string;
  /** Retries the SDK makes itself on connection errors, 408, 409, 429 and 5xx; 2 by default. */
  maxRetries?: number;
  /** Per-request timeout in milliseconds; the SDK's default (1 minute) when omitted. */
  timeoutMs?: number;
}

/**
 * One Cartesia SDK client, made when first needed (once the API key has been read) and reused.
 * The SDK's own logging is off: its error log can print response data.
 *
 * @example
 * const connection = new CartesiaConnection({ apiKey: async () => readSecret("CartesiaApiKey") });
 * connection.boundary; // { kind: "third-party", host: "api.cartesia.ai" }
 * const client = await connection.client();
 */
export class CartesiaConnection {
  /** Where data sent through this connection goes. */
  readonly boundary: Boundary;
  /** The API's base URL, without credentials. */
  readonly baseURL: string;
  readonly #options: CartesiaConnectionOptions;
  readonly #client = builtOnce(() => this.#create());

  constructor(options: CartesiaConnectionOptions) {
    this.#options = options;
    const url = new URL(options.baseURL ?? CARTESIA_API_URL);
    url.username = "";
    url.password = "";
    this.baseURL = url.toString().replace(/\/$/, "");
    this.boundary = { kind: "third-party", host: url.host };
  }

  /** The SDK client. Rejects with {@link ApiKeyUnavailable} if the key cannot be read (and tries again next time). */
  client(): Promise<Cartesia> {
    return this.#client();
  }

  async #create(): Promise<Cartesia> {
    const { apiKey, maxRetries, timeoutMs } = this.#options;
    let key: string;
    try {
      key = typeof apiKey === "string" ? apiKey : await apiKey();
    } catch {
      throw new ApiKeyUnavailable();
    }
    if (key.trim() === "") throw new ApiKeyUnavailable();
    return new Cartesia({
      apiKey: key,
      baseURL: this.baseURL,
      logLevel: "off",
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    });
  }
}

/** The Cartesia API key could not be read, or is empty. Its source's own error is not kept: it may name the secret. */
export class ApiKeyUnavailable extends Error {
  constructor() {
    super("the Cartesia API key could not be read");
    this.name = "ApiKeyUnavailable";
  }
}
