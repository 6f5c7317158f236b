import {
  InternalFailure,
  InternalStreamFailure,
  ModelError,
  ModelNotReadyException,
  ModelStreamError,
  SageMakerRuntimeServiceException,
  ServiceUnavailable,
  ValidationError,
} from "@aws-sdk/client-sagemaker-runtime";
import {
  InvalidInput,
  SynthesisFailed,
  SynthesisRejected,
  SynthesisStreamInterrupted,
  SynthesisThrottled,
} from "@voxtrail/core";
import { describe, expect, test } from "vitest";
import { toSynthesisError } from "../../src/synthesis/sagemaker-errors";

const SECRET = "my card number is 4111 1111 1111 1111";
const metadata = { httpStatusCode: 424, requestId: "req-9" };

function modelError(originalStatus: number): ModelError {
  return new ModelError({
    $metadata: metadata,
    message: `Received client error (${originalStatus}) from primary with message "${SECRET}"`,
    OriginalStatusCode: originalStatus,
    OriginalMessage: SECRET,
  });
}

function socketError(code: string): Error {
  return Object.assign(new Error("aborted"), { code });
}

const before = { audioStarted: false };
const after = { audioStarted: true };

describe("toSynthesisError", () => {
  test.each([
    ["ModelError 429", modelError(429), before, SynthesisThrottled],
    [
      "ModelNotReadyException",
      new ModelNotReadyException({ $metadata: metadata, message: SECRET }),
      before,
      SynthesisThrottled,
    ],
    [
      "ThrottlingException",
      new SageMakerRuntimeServiceException({
        name: "ThrottlingException",
        $fault: "client",
        $metadata: metadata,
        message: SECRET,
      }),
      before,
      SynthesisThrottled,
    ],
    [
      "ServiceUnavailable",
      new ServiceUnavailable({ $metadata: metadata, message: SECRET }),
      before,
      SynthesisThrottled,
    ],
    ["ModelError 422", modelError(422), before, SynthesisRejected],
    ["ModelError 400", modelError(400), before, SynthesisRejected],
    ["ModelError 413", modelError(413), before, SynthesisRejected],
    ["ModelError 500", modelError(500), before, SynthesisFailed],
    [
      "ModelStreamError",
      new ModelStreamError({ $metadata: metadata, message: SECRET, ErrorCode: "StreamBroken" }),
      after,
      SynthesisStreamInterrupted,
    ],
    [
      "InternalStreamFailure",
      new InternalStreamFailure({ $metadata: metadata, message: SECRET }),
      after,
      SynthesisStreamInterrupted,
    ],
    [
      "ModelStreamError before any audio",
      new ModelStreamError({
        $metadata: metadata,
        message: SECRET,
        ErrorCode: "ModelInvocationTimeExceeded",
      }),
      before,
      SynthesisStreamInterrupted,
    ],
    ["ECONNRESET after audio began", socketError("ECONNRESET"), after, SynthesisStreamInterrupted],
    ["EPIPE after audio began", socketError("EPIPE"), after, SynthesisStreamInterrupted],
    ["ECONNRESET before audio", socketError("ECONNRESET"), before, SynthesisFailed],
    ["ECONNREFUSED", socketError("ECONNREFUSED"), before, SynthesisFailed],
    [
      "ValidationError",
      new ValidationError({ $metadata: metadata, message: SECRET }),
      before,
      SynthesisFailed,
    ],
    [
      "InternalFailure",
      new InternalFailure({ $metadata: metadata, message: SECRET }),
      before,
      SynthesisFailed,
    ],
    ["a plain Error", new Error(SECRET), after, SynthesisFailed],
    ["a string", SECRET, before, SynthesisFailed],
  ])("%s -> %O", (_, error, context, expected) => {
    const mapped = toSynthesisError(error, context);
    expect(mapped).toBeInstanceOf(expected);
    expect(mapped.name).toBe(expected.name);
    expect(mapped.message).not.toContain("4111");
  });

  test("messages carry the error name, codes and request id, not the SDK's message", () => {
    expect(toSynthesisError(modelError(422), before).message).toBe(
      "SageMaker ModelError: original status 422, request id req-9",
    );
    const streamError = new ModelStreamError({ $metadata: {}, message: SECRET, ErrorCode: "StreamBroken" });
    expect(toSynthesisError(streamError, after).message).toBe("SageMaker ModelStreamError (StreamBroken)");
    expect(toSynthesisError(socketError("ECONNRESET"), after).message).toBe("SageMaker Error (ECONNRESET)");
  });

  test("voxtrail errors pass through unchanged", () => {
    const error = new InvalidInput("bad");
    expect(toSynthesisError(error, after)).toBe(error);
  });
});
