import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildVoicemailDefinition, STAGE_FUNCTIONS, VOICEMAIL_STAGES, voicemailRulePattern } from "../src";
import { DUPLICATE_CHOICE, DUPLICATE_STATE } from "../src/voicemail-definition";
import { expectValidAsl } from "./expect-valid-asl";
import { testFunctionArns } from "./test-function-arns";

const functionArns = testFunctionArns(STAGE_FUNCTIONS);

describe("buildVoicemailDefinition", () => {
  const definition = buildVoicemailDefinition({ functionArns });

  it("is valid Amazon States Language", () => expectValidAsl(definition));

  it("chains the stages in order and ends after Finalize", () => {
    let name: string | undefined = definition.StartAt;
    const visited: string[] = [];
    while (name) {
      visited.push(name);
      const state: Record<string, unknown> | undefined = definition.States[name];
      name = (state?.Next ?? state?.Default) as string | undefined;
    }
    expect(visited).toEqual(["Ingest", DUPLICATE_CHOICE, ...VOICEMAIL_STAGES.slice(1)]);
    expect(definition.States.Finalize?.End).toBe(true);
  });

  it("ends a duplicate delivery after Ingest, in a Succeed state", () => {
    expect(definition.States.Ingest?.Next).toBe(DUPLICATE_CHOICE);
    expect(definition.States[DUPLICATE_CHOICE]).toMatchObject({
      Type: "Choice",
      Choices: [{ Variable: "$.duplicate", IsPresent: true, Next: DUPLICATE_STATE }],
      Default: "Transcribe",
    });
    expect(definition.States[DUPLICATE_STATE]).toMatchObject({ Type: "Succeed" });
  });

  it("retries only transient named errors, with backoff and full jitter", () => {
    for (const stage of VOICEMAIL_STAGES) {
      const [retrier] = definition.States[stage]!.Retry as Array<Record<string, unknown>>;
      expect(retrier?.ErrorEquals).toContain("SynthesisThrottled");
      expect(retrier?.ErrorEquals).not.toContain("States.ALL");
      expect(retrier?.ErrorEquals).not.toContain("InvalidAudio");
      expect(retrier?.JitterStrategy).toBe("FULL");
      expect(retrier?.BackoffRate).toBeGreaterThan(1);
    }
  });

  it("catches every stage's failure, records it, and fails naming the stage", () => {
    for (const stage of VOICEMAIL_STAGES) {
      const [catcher] = definition.States[stage]!.Catch as Array<Record<string, unknown>>;
      expect(catcher?.ErrorEquals).toEqual(["States.ALL"]);
      const recorder = definition.States[catcher?.Next as string];
      expect(recorder?.Resource).toBe(functionArns.recordFailure);
      expect(recorder?.Parameters).toMatchObject({ stage });
      const fail = definition.States[recorder?.Next as string];
      expect(fail).toMatchObject({ Type: "Fail", Error: `${stage}Failed` });
    }
  });

  it("calls each stage's own function", () => {
    expect(definition.States.Transcribe?.Resource).toBe(functionArns.transcribe);
    expect(definition.States.Synthesize?.Resource).toBe(functionArns.synthesize);
  });
});

describe("voicemailRulePattern", () => {
  it("matches the bucket and the incoming voicemail prefix of S3 Object Created events", () => {
    const sample = JSON.parse(
      readFileSync(
        fileURLToPath(new URL("../../../fixtures/events/s3-object-created.json", import.meta.url)),
        "utf8",
      ),
    );
    const pattern = voicemailRulePattern(sample.detail.bucket.name);
    expect(pattern.source).toEqual([sample.source]);
    expect(pattern["detail-type"]).toEqual([sample["detail-type"]]);
    expect(pattern).toMatchObject({ detail: { object: { key: [{ prefix: "incoming/voicemail/" }] } } });
  });
});
