import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the proxy saw: method and path-style object path (`/bucket/key`, key decoded). */
export interface ProxiedRequest {
  method: string;
  bucket: string;
  key: string;
}

/**
 * A loopback HTTP proxy in front of moto_server that counts the S3 requests the real SDK sends and
 * answers the ones `denies` picks as S3 does without `s3:ListBucket`: 403 with an `AccessDenied`
 * error document (a HEAD answer has no body). moto itself answers 404 for a missing key, which is
 * what S3 says only to a caller that may list the bucket. Clients must use path-style addressing
 * (`forcePathStyle`, or an IP endpoint as `AWS_ENDPOINT_URL`).
 *
 * @example
 * const proxy = await S3AccessProxy.start(motoEndpoint, (r) => r.method === "HEAD");
 * new S3Client({ ...motoClientConfig(), endpoint: proxy.endpoint });
 */
export class S3AccessProxy {
  readonly requests: ProxiedRequest[] = [];
  #denies: (request: ProxiedRequest) => boolean;
  readonly #server: Server;

  private constructor(server: Server, denies: (request: ProxiedRequest) => boolean) {
    this.#server = server;
    this.#denies = denies;
  }

  static async start(
    upstream: string,
    denies: (request: ProxiedRequest) => boolean = () => false,
  ): Promise<S3AccessProxy> {
    const target = new URL(upstream);
    const server = createServer();
    const proxy = new S3AccessProxy(server, denies);
    server.on("request", (incoming, outgoing) => {
      const path = new URL(incoming.url ?? "/", "http://proxy").pathname;
      const [, bucket = "", ...rest] = path.split("/");
      const seen: ProxiedRequest = {
        method: incoming.method ?? "GET",
        bucket: decodeURIComponent(bucket),
        key: decodeURIComponent(rest.join("/")),
      };
      proxy.requests.push(seen);
      if (seen.key !== "" && proxy.#denies(seen)) {
        incoming.resume();
        const body =
          seen.method === "HEAD"
            ? ""
            : '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>PROXY0000000001</RequestId><HostId>proxy</HostId></Error>';
        outgoing.writeHead(403, {
          "content-type": "application/xml",
          "x-amz-request-id": "PROXY0000000001",
          ...(seen.method === "HEAD" ? {} : { "content-length": Buffer.byteLength(body) }),
        });
        outgoing.end(body);
        return;
      }
      const forwarded = request(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on("error", (error) => outgoing.destroy(error));
      incoming.pipe(forwarded);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return proxy;
  }

  /** The proxy's base URL, for an SDK client's `endpoint` or `AWS_ENDPOINT_URL`. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Which requests to answer 403 from now on. */
  deny(denies: (request: ProxiedRequest) => boolean): void {
    this.#denies = denies;
  }

  /** The requests seen so far with this method on this key. */
  count(method: string, key: string): number {
    return this.requests.filter((r) => r.method === method && r.key === key).length;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    this.#server.close();
    await once(this.#server, "close");
  }
}
