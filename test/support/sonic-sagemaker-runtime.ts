import { SageMakerRuntimeClient, type SageMakerRuntimeClientConfig } from "@aws-sdk/client-sagemaker-runtime";
import { LocalRuntime } from "@voxtrail/local";

/** The endpoint name the tests' Sonic-on-SageMaker runs call. */
export const SONIC_ENDPOINT_NAME = "sonic-under-test";

/**
 * A SageMaker Runtime client for the Sonic-compatible endpoint at `url`, in eu-west-1 (the region
 * the tests expect lineage to record) with throwaway credentials, and `config`'s settings.
 */
export function sonicClient(url: string, config: SageMakerRuntimeClientConfig = {}): SageMakerRuntimeClient {
  return new SageMakerRuntimeClient({
    endpoint: url,
    region: "eu-west-1",
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
    ...config,
  });
}

/**
 * The local runtime with synthesis `sonic-sagemaker` against the endpoint at `url` (a faulty local
 * endpoint, or a proxy in front of one) through `client` ({@link sonicClient} unless given), the
 * local reasoner, and the simulated transcriber: these tests are about synthesis, not what was
 * heard. Retries after 10 ms.
 */
export function runtimeWithSonicAt(
  url: string,
  storeDir: string,
  client: SageMakerRuntimeClient = sonicClient(url),
): Promise<LocalRuntime> {
  return LocalRuntime.start({
    storeDir,
    retryIntervalMs: 10,
    providers: {
      transcriber: "simulated",
      reasoner: "local",
      synthesizer: "sonic-sagemaker",
      sonicEndpoint: SONIC_ENDPOINT_NAME,
      voiceId: "slt",
    },
    providerClients: { sagemaker: client },
  });
}
