import { randomUUID } from "node:crypto";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { CreateBucketCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { SageMakerRuntimeClient } from "@aws-sdk/client-sagemaker-runtime";
import { writeWav } from "@voxtrail/audio";
import { InvalidInput } from "@voxtrail/core";
import { type ProviderSelection, selectionFromEnvironment } from "@voxtrail/workflow";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { motoClientConfig } from "../../../test/setup/aws";
import {
  type CartesiaApiServer,
  sendJson,
  startCartesiaApiServer,
} from "../../../test/support/cartesia-api-server";
import { buildProviders } from "../src/choice/build-providers";
import { CLOUD_BUILDERS } from "../src/choice/cloud-builders";
import type { ProviderClients } from "../src/choice/provider-roles";
import { BedrockReasoner } from "../src/reasoning/bedrock";
import { S3RecordLookup } from "../src/records/s3-records";
import { CartesiaApiSynthesizer } from "../src/synthesis/cartesia-api";
import { SonicSageMakerSynthesizer } from "../src/synthesis/sonic-sagemaker";
import { CartesiaInkTranscriber } from "../src/transcription/cartesia-ink";

/** Every role's cloud provider, `undefined` where the selection chose `local`. */
const cloudProviders = (selection: ProviderSelection, clients: ProviderClients = {}) =>
  buildProviders(selection, CLOUD_BUILDERS, { clients });

const API_KEY = "sk_car_selection-key-77c1";
const credentials = { accessKeyId: "testing", secretAccessKey: "testing" };
const clients = {
  sagemaker: new SageMakerRuntimeClient({ region: "eu-central-1", credentials }),
  bedrock: new BedrockRuntimeClient({ region: "us-west-2", credentials }),
  s3: new S3Client(motoClientConfig()),
};
let server: CartesiaApiServer;

beforeAll(async () => {
  server = await startCartesiaApiServer();
});
afterAll(async () => {
  clients.sagemaker.destroy();
  clients.bedrock.destroy();
  clients.s3.destroy();
  await server.close();
});

function failure(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("selectionFromEnvironment", () => {
  test("chooses local for every stage when nothing is set", () => {
    expect(selectionFromEnvironment({})).toEqual({
      transcriber: "local",
      reasoner: "local",
      synthesizer: "local",
    });
  });

  test("reads every choice and setting from its variable", () => {
    const selection = selectionFromEnvironment({
      VOXTRAIL_TRANSCRIBER: "cartesia-ink",
      VOXTRAIL_REASONER: "bedrock",
      VOXTRAIL_SYNTHESIZER: "sonic-sagemaker",
      VOXTRAIL_RECORDS: "s3",
      VOXTRAIL_RECORDS_URI: "s3://voxtrail-data/records/records.jsonl",
      VOXTRAIL_SONIC_ENDPOINT: "sonic-3-6",
      VOXTRAIL_VOICE_ID: "voice-1",
      VOXTRAIL_BEDROCK_MODEL_ID: "amazon.nova-lite-v1:0",
      CARTESIA_BASE_URL: server.url,
      CARTESIA_API_KEY: API_KEY,
    });
    expect(selection).toEqual({
      transcriber: "cartesia-ink",
      reasoner: "bedrock",
      synthesizer: "sonic-sagemaker",
      records: "s3",
      recordsUri: "s3://voxtrail-data/records/records.jsonl",
      sonicEndpoint: "sonic-3-6",
      voiceId: "voice-1",
      bedrockModelId: "amazon.nova-lite-v1:0",
      cartesiaBaseUrl: server.url,
      cartesiaApiKey: expect.any(Function),
    });
    expect(JSON.stringify(selection)).not.toContain(API_KEY);
  });

  test("an unknown provider is InvalidInput listing the valid ones", () => {
    const error = failure(() => selectionFromEnvironment({ VOXTRAIL_SYNTHESIZER: "polly" }));
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error.message).toBe(
      'VOXTRAIL_SYNTHESIZER must be one of local, sonic-sagemaker, cartesia-api; got "polly"',
    );
    expect(failure(() => selectionFromEnvironment({ VOXTRAIL_REASONER: "gpt" })).message).toContain(
      "must be one of local, bedrock",
    );
    expect(failure(() => selectionFromEnvironment({ VOXTRAIL_TRANSCRIBER: "whisper" })).message).toContain(
      "must be one of local, cartesia-ink",
    );
    expect(failure(() => selectionFromEnvironment({ VOXTRAIL_RECORDS: "dynamodb" })).message).toContain(
      "VOXTRAIL_RECORDS must be one of local, s3",
    );
  });
});

describe("buildProviders with every cloud builder", () => {
  test("leaves local choices to the caller", async () => {
    expect(await cloudProviders({ transcriber: "local", reasoner: "local", synthesizer: "local" })).toEqual({
      transcriber: undefined,
      reasoner: undefined,
      synthesizer: undefined,
      records: undefined,
    });
  });

  test("builds each cloud provider with its boundary, the AWS regions coming from the clients", async () => {
    const providers = await cloudProviders(
      {
        transcriber: "cartesia-ink",
        reasoner: "bedrock",
        synthesizer: "sonic-sagemaker",
        sonicEndpoint: "sonic-3-6",
        voiceId: "voice-1",
        bedrockModelId: "amazon.nova-lite-v1:0",
        cartesiaApiKey: API_KEY,
      },
      clients,
    );
    expect(providers.transcriber).toBeInstanceOf(CartesiaInkTranscriber);
    expect(providers.reasoner).toBeInstanceOf(BedrockReasoner);
    expect(providers.synthesizer).toBeInstanceOf(SonicSageMakerSynthesizer);
    expect(providers.transcriber?.processor.boundary).toEqual({
      kind: "third-party",
      host: "api.cartesia.ai",
    });
    expect(providers.reasoner?.processor).toMatchObject({
      model: "amazon.nova-lite-v1:0",
      boundary: { kind: "aws-account", service: "bedrock", region: "us-west-2" },
    });
    expect(providers.synthesizer?.processor).toMatchObject({
      provider: "sonic-sagemaker",
      endpoint: "sonic-3-6",
      boundary: { kind: "aws-account", service: "sagemaker", region: "eu-central-1" },
    });
    const cartesia = await cloudProviders(
      {
        transcriber: "local",
        reasoner: "local",
        synthesizer: "cartesia-api",
        voiceId: "v",
        cartesiaApiKey: API_KEY,
      },
      clients,
    );
    expect(cartesia.synthesizer).toBeInstanceOf(CartesiaApiSynthesizer);
    expect(cartesia.synthesizer?.processor).toMatchObject({
      model: "sonic-3",
      boundary: { kind: "third-party" },
    });
    for (const provider of [
      providers.transcriber,
      providers.reasoner,
      providers.synthesizer,
      cartesia.synthesizer,
    ]) {
      expect(JSON.stringify(provider?.processor)).not.toContain(API_KEY);
    }
  });

  test.each<[Partial<ProviderSelection>, string]>([
    [
      { reasoner: "bedrock" },
      "provider bedrock needs bedrockModelId (environment variable VOXTRAIL_BEDROCK_MODEL_ID)",
    ],
    [
      { synthesizer: "sonic-sagemaker", voiceId: "v" },
      "provider sonic-sagemaker needs sonicEndpoint (environment variable VOXTRAIL_SONIC_ENDPOINT)",
    ],
    [
      { synthesizer: "cartesia-api", voiceId: "v" },
      "provider cartesia-api needs cartesiaApiKey (environment variable CARTESIA_API_KEY)",
    ],
    [
      { transcriber: "cartesia-ink" },
      "provider cartesia-ink needs cartesiaApiKey (environment variable CARTESIA_API_KEY)",
    ],
    [{ records: "s3" }, "provider s3 records needs recordsUri (environment variable VOXTRAIL_RECORDS_URI)"],
    [
      { synthesizer: "cartesia-api", cartesiaApiKey: "k" },
      "provider cartesia-api needs voiceId (environment variable VOXTRAIL_VOICE_ID)",
    ],
  ])("a missing setting is InvalidInput naming it: %o", async (partial, message) => {
    const selection: ProviderSelection = {
      transcriber: "local",
      reasoner: "local",
      synthesizer: "local",
      ...partial,
    };
    const error = await cloudProviders(selection, clients).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as Error).message).toBe(message);
  });

  test("s3 records are read from the object the URI names", async () => {
    const bucket = `selection-${randomUUID()}`;
    await clients.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: "r/records.jsonl",
        Body: '{"type":"order","id":"o-1","orderNumber":"1"}\n',
      }),
    );
    const { records } = await cloudProviders(
      {
        transcriber: "local",
        reasoner: "local",
        synthesizer: "local",
        records: "s3",
        recordsUri: `s3://${bucket}/r/records.jsonl`,
      },
      clients,
    );
    expect(records).toBeInstanceOf(S3RecordLookup);
    // Built, the lookup has read nothing: the object is read on the first find.
    expect((records as S3RecordLookup).etag).toBeUndefined();
    expect(await records?.find({ orderNumber: "1" })).toMatchObject({ record: { id: "o-1" } });
    expect((records as S3RecordLookup).etag).toBeDefined();
    expect(records?.processor).toMatchObject({
      boundary: { kind: "aws-account", service: "s3", region: "us-east-1" },
    });
    const error = await cloudProviders(
      {
        transcriber: "local",
        reasoner: "local",
        synthesizer: "local",
        records: "s3",
        recordsUri: "bucket/key",
      },
      clients,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInput);
    expect((error as Error).message).toBe("recordsUri must look like s3://bucket/key");
  });

  test("an unknown name in a plain config object is InvalidInput too", async () => {
    const selection = {
      transcriber: "local",
      reasoner: "local",
      synthesizer: "espeak",
    } as unknown as ProviderSelection;
    await expect(cloudProviders(selection)).rejects.toThrow(
      "synthesizer must be one of local, sonic-sagemaker, cartesia-api",
    );
  });

  test("a Cartesia provider chosen from the environment reads the API key when first used", async () => {
    const env: NodeJS.ProcessEnv = {
      VOXTRAIL_TRANSCRIBER: "cartesia-ink",
      CARTESIA_BASE_URL: server.url,
      CARTESIA_API_KEY: "set-at-deploy",
    };
    const { transcriber } = await cloudProviders(selectionFromEnvironment(env));
    env.CARTESIA_API_KEY = API_KEY; // e.g. filled from an SST Secret after the selection was read
    server.respondWith((_request, response) =>
      sendJson(response, 200, { type: "transcript", text: "hello" }),
    );
    const wav = writeWav({ encoding: "pcm_s16le", sampleRate: 16000, channels: 1 }, new Uint8Array(3200));
    const transcript = await transcriber?.transcribe(wav, { language: "en" });
    expect(transcript?.text).toBe("hello");
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(transcriber?.processor.boundary).toEqual({ kind: "third-party", host: new URL(server.url).host });
  });
});
