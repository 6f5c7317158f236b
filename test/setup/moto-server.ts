import { startMotoServer } from "@voxtrail/operator/moto-server";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the moto_server this test run started, e.g. `http://127.0.0.1:41234`. */
    motoEndpoint: string;
  }
}

/**
 * Starts `moto_server` on a free loopback port for the tier's whole run and tells its tests the URL;
 * the returned teardown stops it (each tier that asks for one has its own).
 */
export async function setup(project: TestProject): Promise<() => void> {
  const moto = await startMotoServer();
  project.provide("motoEndpoint", moto.endpoint);
  return () => moto.stop();
}
