import { once } from "node:events";
import { Agent, createServer, request, type Server } from "node:http";
import { createServer as createHttpsServer, Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WireWatch, watchWire } from "../../src/wire/wire-watch";

// When a request's first byte was written to its socket, seen through Node's diagnostics channels,
// against a loopback server that notes when each request arrived (both on performance.now()).

let server: Server;
let url: string;
const arrivals: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    arrivals.push(performance.now());
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
});

/** POSTs a small body with Node's http client through `agent`, as the AWS SDK's handler does. */
function post(agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/invocations`, { method: "POST", agent }, (res) => {
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
    req.end(JSON.stringify({ transcript: "not kept" }));
  });
}

describe("WireWatch", () => {
  test("the request that started last wins, and only once it has written", () => {
    const watch = new WireWatch(() => 0);
    const credentials = watch.started();
    const own = watch.started();
    watch.written(credentials, 5);
    expect(watch.writtenAt).toBeUndefined(); // the call's own request has not gone out yet
    watch.written(own, 12);
    watch.written(own, 20); // its first byte only
    watch.written(credentials, 30); // an earlier request does not move it
    expect(watch.writtenAt).toBe(12);
    const retry = watch.started();
    expect(watch.writtenAt).toBeUndefined();
    watch.written(retry, 40);
    expect(watch.writtenAt).toBe(40);
  });

  test("a new connection: marked as it connected and its queued bytes went out, before the server saw them", async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const watch = new WireWatch();
      const before = performance.now();
      arrivals.length = 0;
      await watchWire(watch, () => post(agent));
      expect(watch.writtenAt).toBeGreaterThanOrEqual(before);
      expect(watch.writtenAt).toBeLessThanOrEqual(arrivals[0] ?? Number.NaN);
    } finally {
      agent.destroy();
    }
  });

  test("a kept-alive connection: marked as the agent hands it over, just before the write", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await watchWire(new WireWatch(), () => post(agent)); // opens the connection, watches the agent
      const watch = new WireWatch();
      arrivals.length = 0;
      const before = performance.now();
      await watchWire(watch, () => post(agent));
      expect(watch.writtenAt).toBeGreaterThanOrEqual(before);
      expect(watch.writtenAt).toBeLessThanOrEqual(arrivals[0] ?? Number.NaN);
    } finally {
      agent.destroy();
    }
  });

  test("concurrent calls each see their own request; a call not watched is not seen", async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const first = new WireWatch();
      const second = new WireWatch();
      const unwatched = new WireWatch();
      await Promise.all([
        watchWire(first, () => post(agent)),
        watchWire(second, () => post(agent)),
        post(agent),
      ]);
      expect(first.writtenAt).toBeDefined();
      expect(second.writtenAt).toBeDefined();
      expect(first.writtenAt).not.toBe(second.writtenAt);
      expect(unwatched.writtenAt).toBeUndefined();
    } finally {
      agent.destroy();
    }
  });

  test("fetch (undici): marked as the request's head is written, before the server saw it", async () => {
    const watch = new WireWatch();
    arrivals.length = 0;
    const before = performance.now();
    const response = await watchWire(watch, () =>
      fetch(`${url}/tts/sse`, { method: "POST", body: JSON.stringify({ transcript: "not kept" }) }),
    );
    await response.text();
    expect(watch.writtenAt).toBeGreaterThanOrEqual(before);
    expect(watch.writtenAt).toBeLessThanOrEqual(arrivals[0] ?? Number.NaN);
  });

  test("on the watch's own clock", async () => {
    // A clock 1000 ms ahead of performance.now(): the mark of a new connection is moved onto it.
    const watch = new WireWatch(() => performance.now() + 1000);
    const agent = new Agent({ keepAlive: true });
    try {
      arrivals.length = 0;
      await watchWire(watch, () => post(agent));
      expect(watch.writtenAt).toBeGreaterThan(1000);
      expect((watch.writtenAt ?? 0) - 1000).toBeLessThanOrEqual((arrivals[0] ?? 0) + 0.5);
    } finally {
      agent.destroy();
    }
  });

  test("TLS: marked once the handshake is done and the request went out, both on a new and a kept-alive connection", async () => {
    const accepted: number[] = [];
    const tlsArrivals: number[] = [];
    const tls = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (req, res) => {
      tlsArrivals.push(performance.now());
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    tls.on("connection", () => accepted.push(performance.now()));
    tls.listen(0, "127.0.0.1");
    await once(tls, "listening");
    const port = (tls.address() as AddressInfo).port;
    const agent = new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: TEST_CERT });
    const send = () =>
      new Promise<void>((resolve, reject) => {
        const req = httpsRequest(
          `https://127.0.0.1:${port}/invocations`,
          { method: "POST", agent },
          (res) => {
            res.resume();
            res.on("end", resolve);
          },
        );
        req.on("error", reject);
        req.end("{}");
      });
    try {
      const fresh = new WireWatch();
      await watchWire(fresh, send);
      // After the connection was accepted (the handshake is the client's set-up), before the request arrived.
      expect(fresh.writtenAt).toBeGreaterThan(accepted[0] ?? Number.NaN);
      expect(fresh.writtenAt).toBeLessThanOrEqual(tlsArrivals[0] ?? Number.NaN);
      const kept = new WireWatch();
      const before = performance.now();
      await watchWire(kept, send);
      expect(accepted).toHaveLength(1);
      expect(kept.writtenAt).toBeGreaterThanOrEqual(before);
      expect(kept.writtenAt).toBeLessThanOrEqual(tlsArrivals[1] ?? Number.NaN);
    } finally {
      agent.destroy();
      tls.closeAllConnections();
      tls.close();
    }
  });
});

/** A self-signed certificate for 127.0.0.1 (P-256, valid to 2126) and its key: for this loopback test only. */
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUZpLLkoPWAuC7CKTrVjZ4UUrdXcIwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwNzAwNDQzN1oYDzIxMjYxMTEz
MDA0NDM3WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAR2VJGgt88b3FuOKZowLrRmpFMlTqLyYbEDW6IjOFE9UH1WGWkc6DeP
LkONSWxe0lOvxIl1wiZ+YGX6FeMVRnbWo28wbTAdBgNVHQ4EFgQUqZiQcQyXWQ0a
CJQs8twgpdg6HzQwHwYDVR0jBBgwFoAUqZiQcQyXWQ0aCJQs8twgpdg6HzQwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZI
zj0EAwIDSAAwRQIhAN9lZIAmbPPulW6m/KJpp/NN223t2YOJDd79hDXuM/AcAiBo
HST2KxFshBBNqyXa3dSmhdkXAIBbmQlYXAO3wysPWg==
-----END CERTIFICATE-----`;
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgS87GRCbaqUvDKUKH
S9felWbRSADokceDDDTx4Gq9J9ahRANCAAR2VJGgt88b3FuOKZowLrRmpFMlTqLy
YbEDW6IjOFE9UH1WGWkc6DePLkONSWxe0lOvxIl1wiZ+YGX6FeMVRnbW
-----END PRIVATE KEY-----`;
