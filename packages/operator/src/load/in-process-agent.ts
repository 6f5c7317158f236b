import { Agent, type Server } from "node:http";
import { type Duplex, duplexPair } from "node:stream";

/**
 * An HTTP agent whose connections are in-memory stream pairs into `server` (a stand-in's
 * `httpServer`), instead of TCP sockets: the AWS SDK client still serialises every request and
 * parses every answer over real HTTP/1.1 (Node's own client and server), but no byte leaves the
 * process, so no request is real I/O the virtual clock must wait for (virtual-clock.ts). Give it to
 * the client's `NodeHttpHandler` as `httpAgent`.
 *
 * @example
 * const client = new TranscribeClient({
 *   endpoint: endpoint.url,
 *   requestHandler: new NodeHttpHandler({ httpAgent: new InProcessAgent(endpoint.httpServer) }),
 * });
 */
export class InProcessAgent extends Agent {
  constructor(private readonly server: Server) {
    super({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  }

  /** A new in-memory connection, its far end handed to the server as an accepted socket. */
  override createConnection(): Duplex {
    const [client, accepted] = duplexPair();
    for (const end of [client, accepted]) socketLike(end);
    this.server.emit("connection", accepted);
    return client;
  }
}

/**
 * Gives a stream the socket methods Node's HTTP client, agent and server call on a connection
 * (timeouts, keep-alive, Nagle, ref counting), as no-ops: an in-memory connection has no idle
 * timer to arm and no event-loop handle to hold.
 */
function socketLike(stream: Duplex): void {
  const self = () => stream;
  Object.assign(stream, {
    setTimeout: self,
    setNoDelay: self,
    setKeepAlive: self,
    ref: self,
    unref: self,
    remoteAddress: "127.0.0.1",
    remotePort: 0,
    localAddress: "127.0.0.1",
    localPort: 0,
    encrypted: false,
  });
}
