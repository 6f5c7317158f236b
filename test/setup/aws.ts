import { inject } from "vitest";

/** SDK client settings for the moto_server of this test run: loopback endpoint, fake credentials. */
export function motoClientConfig() {
  return {
    endpoint: inject("motoEndpoint"),
    region: "us-east-1",
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
    forcePathStyle: true,
  };
}
