import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the moto_server this test run started, e.g. `http://127.0.0.1:41234`. */
    motoEndpoint: string;
  }
}

let moto: ChildProcess | undefined;

/** Starts `moto_server` on a free loopback port for the whole run and tells the tests its URL. */
export async function setup(project: TestProject): Promise<void> {
  const port = await freePort();
  moto = spawn("moto_server", ["-H", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
  moto.on("error", (error) => {
    throw new Error(`moto_server could not start (is moto[server] installed?): ${error.message}`);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  await waitUntilUp(endpoint);
  project.provide("motoEndpoint", endpoint);
}

/** Stops moto_server. */
export function teardown(): void {
  moto?.kill();
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
