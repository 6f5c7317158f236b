import { type MotoServer, startMotoServer } from "@voxtrail/operator/moto-server";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the moto_server this test run started, e.g. `http://127.0.0.1:41234`. */
    motoEndpoint: string;
  }
}

let moto: MotoServer | undefined;

/** Starts `moto_server` on a free loopback port for the whole run and tells the tests its URL. */
export async function setup(project: TestProject): Promise<void> {
  moto = await startMotoServer();
  project.provide("motoEndpoint", moto.endpoint);
}

/** Stops moto_server. */
export function teardown(): void {
  moto?.stop();
}
