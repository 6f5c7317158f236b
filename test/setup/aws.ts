import { inject } from "vitest";

/**
 * The URL of this tier's moto_server. A tier without one (`unit`, `models`) has none to give:
 * asking is an error that names where the test file belongs, never a call to real AWS.
 */
export function motoEndpoint(): string {
  const endpoint = inject("motoEndpoint");
  if (!endpoint) {
    throw new Error(
      "this tier has no moto_server: name the test file in a tier that has one (test/setup/tiers.ts)",
    );
  }
  return endpoint;
}

/** SDK client settings for the moto_server of this test run: loopback endpoint, fake credentials. */
export function motoClientConfig() {
  return {
    endpoint: motoEndpoint(),
    region: "us-east-1",
    credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
    forcePathStyle: true,
  };
}

/** Environment for a `voxtrail` child process: the standard AWS configuration, pointed at this run's moto_server. */
export function motoCliEnvironment(): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: motoEndpoint(),
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "testing",
    AWS_SECRET_ACCESS_KEY: "testing",
  };
}
