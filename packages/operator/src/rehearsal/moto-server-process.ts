import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/** A moto_server this process started on a loopback port. */
export interface MotoServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  endpoint: string;
  stop(): void;
}

/**
 * Starts `moto_server` (Python's moto[server]) on a free loopback port and waits until it answers.
 *
 * @example
 * const moto = await startMotoServer();
 * new S3Client({ endpoint: moto.endpoint, forcePathStyle: true });
 * moto.stop();
 */
export async function startMotoServer(): Promise<MotoServer> {
  const port = await freePort();
  const child: ChildProcess = spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: "ignore",
  });
  const failed = new Promise<never>((_, reject) =>
    child.once("error", (error) =>
      reject(new Error(`moto_server could not start (is moto[server] installed?): ${error.message}`)),
    ),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  await Promise.race([waitUntilUp(endpoint), failed]);
  return { endpoint, stop: () => child.kill() };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject()));
    });
  });
}

async function waitUntilUp(endpoint: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      await fetch(`${endpoint}/moto-api/`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`moto_server did not answer at ${endpoint} within 30 s`);
}
