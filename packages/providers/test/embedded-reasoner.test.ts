import { describe, expect, test } from "vitest";
import { buildProviders } from "../src/choice/build-providers";
import { embeddedReasoner } from "../src/choice/embedded-reasoner";
import { cloudReasoner } from "../src/choice/reasoner-choice";
import { LocalReasoner } from "../src/reasoning/local-reasoner";

describe("embeddedReasoner", () => {
  test("builds the rule-based reasoner when the selection chooses local", async () => {
    const { reasoner } = await buildProviders(
      { transcriber: "local", reasoner: "local", synthesizer: "local" },
      { reasoner: cloudReasoner },
      { embedded: { reasoner: embeddedReasoner } },
    );
    expect(reasoner).toBeInstanceOf(LocalReasoner);
    expect(reasoner?.processor.boundary).toEqual({ kind: "local" });
  });
});
