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

/** Environment for a `voxtrail` child process: the standard AWS configuration, pointed at this run's moto_server. */
export function motoCliEnvironment(): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: inject("motoEndpoint"),
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "testing",
    AWS_SECRET_ACCESS_KEY: "testing",
  };
}
