import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadStageConfig } from "../../stacks/stage-config";
import { configEnvironment, repositoryConfig } from "./stage-configs";

const root = resolve(import.meta.dirname, "../..");

describe("a stage's languages (config/stages/*.json `languages`)", () => {
  it("are optional: the repository's stages name none, and their calls stay English", () => {
    expect(loadStageConfig("dev", root, {}).config.languages).toBeUndefined();
  });

  it("take tags with regions that the stage's synthesizer speaks", () => {
    const config = { ...repositoryConfig("dev"), languages: ["en-US", "es-US"] };
    expect(loadStageConfig("dev", root, configEnvironment(config)).config.languages).toEqual([
      "en-US",
      "es-US",
    ]);
  });

  it("refuse a bare language and one the synthesizer does not speak, naming the field", () => {
    const bare = { ...repositoryConfig("dev"), languages: ["es"] };
    expect(() => loadStageConfig("dev", root, configEnvironment(bare))).toThrow(/languages/);
    const unspoken = { ...repositoryConfig("dev"), languages: ["en-US", "xx-XX"] };
    expect(() => loadStageConfig("dev", root, configEnvironment(unspoken))).toThrow(
      /xx-XX is not a language the synthesizer sonic-sagemaker speaks/,
    );
  });
});
