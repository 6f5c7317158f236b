import { describe, expect, it } from "vitest";
import {
  buildPromptsDefinition,
  LOCAL_ITEMS_FIELD,
  localMapDefinition,
  PROMPT_FUNCTIONS,
  promptsJobIdFor,
  promptsRulePattern,
} from "../src";
import { LocalMapAdaptationFailed } from "../src/local-map-adaptation";
import { PROMPT_STATES } from "../src/prompts-definition";
import { DUPLICATE_CHOICE, DUPLICATE_STATE } from "../src/voicemail-definition";
import { expectValidAsl } from "./expect-valid-asl";
import { testFunctionArns } from "./test-function-arns";

const functionArns = testFunctionArns(PROMPT_FUNCTIONS);

type State = Record<string, unknown>;

function mapOf(definition: { States: Record<string, State> }): State {
  return definition.States[PROMPT_STATES.map] as State;
}

function processorStates(map: State): Record<string, State> {
  return (map.ItemProcessor as { States: Record<string, State> }).States;
}

describe("buildPromptsDefinition", () => {
  const definition = buildPromptsDefinition({ functionArns, maxConcurrency: 6 });

  it("is valid Amazon States Language", () => expectValidAsl(definition));

  it("prepares, fans out over a Distributed Map reading rows.jsonl from S3, then writes the report", () => {
    expect(definition.StartAt).toBe(PROMPT_STATES.prepare);
    expect(definition.States[PROMPT_STATES.prepare]?.Next).toBe(DUPLICATE_CHOICE);
    expect(definition.States[DUPLICATE_CHOICE]?.Default).toBe(PROMPT_STATES.map);
    const map = mapOf(definition);
    expect(map).toMatchObject({
      Type: "Map",
      ItemReader: { Resource: "arn:aws:states:::s3:getObject", ReaderConfig: { InputType: "JSONL" } },
      ItemProcessor: { ProcessorConfig: { Mode: "DISTRIBUTED" } },
      ResultWriter: { Resource: "arn:aws:states:::s3:putObject" },
      MaxConcurrency: 6,
      ToleratedFailurePercentage: 100,
      ResultPath: null,
      Next: PROMPT_STATES.report,
    });
    expect(definition.States[PROMPT_STATES.report]?.End).toBe(true);
  });

  it("ends a duplicate delivery, which PreparePrompts answers with { jobId, duplicate }, in the Duplicate Succeed state", () => {
    expect(definition.States[DUPLICATE_CHOICE]).toEqual({
      Type: "Choice",
      Comment: expect.any(String),
      Choices: [{ Variable: "$.duplicate", IsPresent: true, Next: DUPLICATE_STATE }],
      Default: PROMPT_STATES.map,
    });
    expect(definition.States[DUPLICATE_STATE]).toMatchObject({ Type: "Succeed" });
  });

  it("retries a prompt's transient errors and records any other failure instead of failing the Map", () => {
    const states = processorStates(mapOf(definition));
    const synthesize = states[PROMPT_STATES.synthesize] as State;
    const [retrier] = synthesize.Retry as State[];
    expect(retrier?.ErrorEquals).toContain("SynthesisThrottled");
    expect(retrier?.ErrorEquals).not.toContain("States.ALL");
    expect(retrier?.ErrorEquals).not.toContain("PromptTextEmpty");
    expect(synthesize.Catch).toEqual([
      { ErrorEquals: ["States.ALL"], ResultPath: "$.failure", Next: PROMPT_STATES.recordFailure },
    ]);
    expect(states[PROMPT_STATES.recordFailure]?.Resource).toBe(functionArns.recordPromptFailure);
    expect(synthesize.Resource).toBe(functionArns.synthesizePrompt);
  });

  it("refuses a concurrency that is not a positive integer", () => {
    expect(() => buildPromptsDefinition({ functionArns, maxConcurrency: 0 })).toThrow(RangeError);
  });
});

describe("localMapDefinition (the prompts definition)", () => {
  const cloud = buildPromptsDefinition({ functionArns, maxConcurrency: 3 });
  const local = localMapDefinition(cloud);

  it("turns the Distributed Map into an inline Map over the rows handed in, and changes nothing else", () => {
    const map = mapOf(local);
    expect(map.ItemReader).toBeUndefined();
    expect(map.ResultWriter).toBeUndefined();
    expect(map.ToleratedFailurePercentage).toBeUndefined();
    expect(map.ItemsPath).toBe(`$.${LOCAL_ITEMS_FIELD}`);
    expect((map.ItemProcessor as State).ProcessorConfig).toEqual({ Mode: "INLINE" });
    expect(map.MaxConcurrency).toBe(3);
    expect(map.ItemSelector).toEqual(mapOf(cloud).ItemSelector);
    expect(processorStates(map)).toEqual(processorStates(mapOf(cloud)));
    const { [PROMPT_STATES.map]: _localMap, ...otherLocal } = local.States;
    const { [PROMPT_STATES.map]: _cloudMap, ...otherCloud } = cloud.States;
    expect(otherLocal).toEqual(otherCloud);
  });

  it("leaves the cloud definition as it was", () => {
    expect(cloud).toEqual(buildPromptsDefinition({ functionArns, maxConcurrency: 3 }));
  });

  it("is still valid ASL", () => expectValidAsl(local));

  it("refuses a cloud definition whose shape changed", () => {
    const inline = structuredClone(cloud);
    (mapOf(inline).ItemProcessor as State).ProcessorConfig = { Mode: "INLINE" };
    expect(() => localMapDefinition(inline)).toThrow(LocalMapAdaptationFailed);

    const csvReader = structuredClone(cloud);
    (mapOf(csvReader).ItemReader as { ReaderConfig: State }).ReaderConfig = { InputType: "CSV" };
    expect(() => localMapDefinition(csvReader)).toThrow(/CSV with a header row/);

    const noWriter = structuredClone(cloud);
    delete mapOf(noWriter).ResultWriter;
    expect(() => localMapDefinition(noWriter)).toThrow(/ResultWriter/);

    const twoMaps = structuredClone(cloud);
    twoMaps.States.Another = structuredClone(mapOf(cloud));
    expect(() => localMapDefinition(twoMaps)).toThrow(/found 2/);
  });
});

describe("prompt jobs", () => {
  it("derive their id from the manifest's identity, with the pr- prefix", () => {
    const source = { bucket: "b", key: "incoming/prompts/menu.csv", etag: '"abc"' };
    expect(promptsJobIdFor(source)).toMatch(/^pr-[0-9a-f]{20}$/);
    expect(promptsJobIdFor(source)).toBe(promptsJobIdFor({ ...source }));
    expect(promptsJobIdFor({ ...source, etag: '"abd"' })).not.toBe(promptsJobIdFor(source));
  });

  it("start from manifests under incoming/prompts/", () => {
    expect(promptsRulePattern("bucket")).toMatchObject({
      detail: { bucket: { name: ["bucket"] }, object: { key: [{ prefix: "incoming/prompts/" }] } },
    });
  });
});
