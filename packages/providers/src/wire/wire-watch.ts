import { AsyncLocalStorage } from "node:async_hooks";
import { subscribe } from "node:diagnostics_channel";
import { Agent, type ClientRequest } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";

/**
 * When a call's request went onto the wire: the moment its first byte was written to the socket,
 * on the monotonic clock. Everything a client does before that (credentials, signing, endpoint
 * resolution, the connection and its TLS handshake, the first call's lazy loading) is the client's
 * set-up; from it on, the time is the network's and the server's.
 *
 * Filled in by {@link watchWire}'s hooks for every request the call makes in its async context,
 * through Node's `http`/`https` (the AWS SDK's `NodeHttpHandler`) or `fetch` (undici). When the call
 * makes several requests (a credentials request before its own; the SDK's retries), the one that
 * started last wins: the attempt whose response the caller reads. Nothing about the request's
 * content is kept: only a time.
 *
 * @example
 * const wire = new WireWatch();
 * const response = await watchWire(wire, () => client.send(command));
 * wire.writtenAt; // performance.now() when the request's first byte was written to its socket
 */
export class WireWatch {
  readonly #now: () => number;
  #started = 0;
  #writtenBy = 0;
  #writtenAt: number | undefined;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A request started in the watched call; returns its ticket for {@link written}. */
  started(): number {
    this.#started += 1;
    return this.#started;
  }

  /**
   * The request with `ticket` wrote its first byte at `at` (default: now): kept unless a later
   * request already wrote.
   */
  written(ticket: number, at: number = this.#now()): void {
    if (ticket < this.#writtenBy) return;
    if (ticket === this.#writtenBy && this.#writtenAt !== undefined) return;
    this.#writtenBy = ticket;
    this.#writtenAt = at;
  }

  /** A `performance.now()` time, `at`, on this watch's clock. */
  fromPerformanceNow(at: number): number {
    return this.#now() - (performance.now() - at);
  }

  /** When the latest request's first byte was written (undefined: none was seen). */
  get writtenAt(): number | undefined {
    return this.#writtenBy === this.#started ? this.#writtenAt : undefined;
  }
}

const watching = new AsyncLocalStorage<WireWatch>();
/** undici's requests, from where they were created (in the caller's context) to their first write. */
const fetchTickets = new WeakMap<object, { watch: WireWatch; ticket: number }>();
/** Requests ticketed as their agent gave them a kept-alive connection. */
const seenEarly = new WeakSet<ClientRequest>();
/** Agents whose `reuseSocket` reports to the watches. */
const watchedAgents = new WeakSet<object>();

/**
 * Has `agent` (the AWS SDK's, or any `http.Agent`) report the requests of watched calls it gives a
 * kept-alive connection: `reuseSocket(socket, request)`, the hook `http.Agent` documents for it, is
 * called in the caller's context as the request is created, and the request's `socket` event comes
 * just before its bytes are written to that connection (`http.client.request.start` comes only
 * after the write has completed, a turn of the event loop later: up to 13 ms on a loaded machine).
 */
function watchReuse(agent: unknown): void {
  if (!(agent instanceof Agent) || watchedAgents.has(agent)) return;
  watchedAgents.add(agent);
  const reuseSocket = agent.reuseSocket;
  agent.reuseSocket = function reuseWatched(socket: Duplex, request: ClientRequest): void {
    const watch = watching.getStore();
    if (watch !== undefined) {
      seenEarly.add(request);
      const ticket = watch.started();
      request.once("socket", () => watch.written(ticket));
    }
    reuseSocket.call(this, socket, request);
  };
}

/** Connections opened in a watched call, until a request is seen on them. */
const newConnections = new WeakMap<Socket, NewConnection>();
let hooked = false;

interface NewConnection {
  /** When it connected (`performance.now()`), once it has. */
  connectedAt?: number;
  /** Requests waiting for it to connect. */
  waiting: Array<(at: number) => void>;
}

/**
 * Runs `call`, recording into `watch` when each request it makes goes onto the wire.
 *
 * Node's diagnostics channels say when, for any client that uses `http`, `https` or `fetch`
 * (nothing of Node's is patched; an agent seen is given a wrapped `reuseSocket`, below):
 * - `http.client.request.start` is published once a request was handed to its socket. On a
 *   connection the call opened (`net.client.socket`, in the call's context), the bytes waited for
 *   it to connect and went out at its `connect`, which a listener added when it was opened (so
 *   before the request's own, which writes) marks. On a connection still connecting that was not
 *   seen opening (TLS: the bytes wait for the handshake), `connect` or `secureConnect`. On a
 *   kept-alive connection they were written already: marked at once, or, once the agent has been
 *   seen, just before the write ({@link watchReuse}).
 * - For `fetch`, undici's `undici:client:sendHeaders` is published just before the request's head
 *   is written to its connected socket; the request is tied to the call at `undici:request:create`.
 *
 * Not seen: HTTP/2 (the SDK's `NodeHttp2Handler`, Bedrock Runtime's default), for which Node 20
 * publishes no channel; nor a request that waited for a free connection (all of its agent's
 * `maxSockets` busy), which is handed one in the context of the call that freed it: that call has
 * read its own mark by then, and the waiting call gets none (so no wire timings).
 */
export function watchWire<T>(watch: WireWatch, call: () => T): T {
  hookOnce();
  return watching.run(watch, call);
}

function hookOnce(): void {
  if (hooked) return;
  hooked = true;
  // A connection opened for a watched call: its `connect` listener goes on before the request's
  // own (which writes the bytes queued while connecting), so it runs just before the first write.
  subscribe("net.client.socket", (message) => {
    const socket = (message as { socket?: Socket }).socket;
    if (socket === undefined || watching.getStore() === undefined) return;
    const connection: NewConnection = { waiting: [] };
    newConnections.set(socket, connection);
    socket.once("connect", () => {
      connection.connectedAt = performance.now();
      for (const written of connection.waiting.splice(0)) written(connection.connectedAt);
    });
  });
  subscribe("http.client.request.start", (message) => {
    const watch = watching.getStore();
    const request = (message as { request?: ClientRequest }).request;
    const socket = request?.socket;
    if (watch === undefined || request === undefined || !socket) return;
    watchReuse((request as ClientRequest & { agent?: unknown }).agent);
    if (seenEarly.has(request)) return;
    const ticket = watch.started();
    const connection = newConnections.get(socket);
    if (connection !== undefined) {
      // The request's first byte went out when its new connection connected.
      newConnections.delete(socket);
      if (connection.connectedAt !== undefined) {
        watch.written(ticket, watch.fromPerformanceNow(connection.connectedAt));
      } else {
        connection.waiting.push((at) => watch.written(ticket, watch.fromPerformanceNow(at)));
      }
    } else if (socket.connecting) {
      // A connection not seen opening (TLS): its bytes wait for the handshake.
      const encrypted = (socket as Socket & { encrypted?: boolean }).encrypted === true;
      socket.once(encrypted ? "secureConnect" : "connect", () => watch.written(ticket));
    } else {
      // A kept-alive connection whose agent was not watched yet: written already, a little before.
      watch.written(ticket);
    }
  });
  subscribe("undici:request:create", (message) => {
    const watch = watching.getStore();
    const request = (message as { request?: object }).request;
    if (watch === undefined || request === undefined) return;
    fetchTickets.set(request, { watch, ticket: watch.started() });
  });
  subscribe("undici:client:sendHeaders", (message) => {
    const request = (message as { request?: object }).request;
    const entry = request === undefined ? undefined : fetchTickets.get(request);
    if (entry === undefined || request === undefined) return;
    fetchTickets.delete(request);
    entry.watch.written(entry.ticket);
  });
}
