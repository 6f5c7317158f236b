import type { AddressInfo, Server } from "node:net";

/** A stand-in server listening on loopback: its base URL, and how to stop it. */
export interface ListeningStandIn {
  url: string;
  /** Drops the open connections, then closes the server. */
  close(): Promise<void>;
}

/**
 * Starts `server` on a free loopback port. Its `close` calls `dropConnections` first (an HTTP
 * server's `closeAllConnections`, an HTTP/2 server's sessions destroyed), so it stops at once.
 *
 * @example
 * const { url, close } = await listenOnLoopback(server, () => server.closeAllConnections());
 */
export async function listenOnLoopback(
  server: Server,
  dropConnections: () => void,
): Promise<ListeningStandIn> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        dropConnections();
        server.close(() => resolve());
      }),
  };
}
