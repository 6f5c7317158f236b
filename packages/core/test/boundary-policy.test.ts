import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type Boundary,
  BoundaryPolicy,
  decideBoundaries,
  describeRefusal,
  type Processor,
} from "../src/index";

const POLICY_DIR = fileURLToPath(new URL("../../../config/boundary-policy/", import.meta.url));

async function policy(stage: string): Promise<BoundaryPolicy> {
  return BoundaryPolicy.parse(JSON.parse(await readFile(`${POLICY_DIR}${stage}.json`, "utf8")));
}

const processor = (boundary: Boundary): Processor => ({ provider: "p", model: "m", version: "1", boundary });
const cartesia: Boundary = { kind: "third-party", host: "api.cartesia.ai" };
const elsewhere: Boundary = { kind: "third-party", host: "api.example.net" };
const account: Boundary = { kind: "aws-account", service: "sagemaker", region: "eu-west-1" };

describe("boundary policy files", () => {
  it("has one valid policy per stage environment, named after the file", async () => {
    const files = (await readdir(POLICY_DIR)).filter((file) => file.endsWith(".json")).sort();
    expect(files).toEqual(["dev.json", "local.json", "production.json"]);
    for (const file of files)
      expect((await policy(file.replace(".json", ""))).environment).toBe(file.replace(".json", ""));
  });

  it("production keeps caller audio, transcripts and records out of every third-party boundary", async () => {
    const production = await policy("production");
    for (const kind of ["source-audio", "normalized-audio", "transcript", "record"] as const) {
      for (const boundary of [cartesia, elsewhere]) {
        expect(
          decideBoundaries(production, [{ processor: processor(boundary), kinds: [kind] }]).outcome,
          kind,
        ).toBe("refused");
      }
      expect(decideBoundaries(production, [{ processor: processor(account), kinds: [kind] }]).outcome).toBe(
        "allowed",
      );
    }
    // The reply may be voiced by Cartesia's API, and by no other third party.
    expect(
      decideBoundaries(production, [{ processor: processor(cartesia), kinds: ["reply-text"] }]).outcome,
    ).toBe("allowed");
    expect(
      decideBoundaries(production, [{ processor: processor(elsewhere), kinds: ["reply-text"] }]).outcome,
    ).toBe("refused");
  });
});

describe("decideBoundaries", () => {
  it("records every flow with its verdict, and names only the refused ones", async () => {
    const decision = decideBoundaries(await policy("production"), [
      { processor: processor(account), kinds: ["normalized-audio"] },
      {
        processor: { ...processor(cartesia), provider: "cartesia" },
        kinds: ["normalized-audio", "transcript"],
      },
    ]);
    expect(decision).toEqual({
      environment: "production",
      outcome: "refused",
      flows: [
        expect.objectContaining({ kind: "normalized-audio", boundary: account, allowed: true }),
        expect.objectContaining({ kind: "normalized-audio", provider: "cartesia", allowed: false }),
        expect.objectContaining({ kind: "transcript", provider: "cartesia", allowed: false }),
      ],
    });
    expect(describeRefusal(decision)).toBe(
      'boundary policy "production" forbids normalized-audio into third-party:api.cartesia.ai (provider cartesia); transcript into third-party:api.cartesia.ai (provider cartesia)',
    );
  });

  it("narrows by region and service, and refuses a kind the policy does not name", () => {
    const narrow = BoundaryPolicy.parse({
      schemaVersion: 1,
      environment: "narrow",
      kinds: { transcript: [{ boundary: "aws-account", regions: ["eu-west-1"], services: ["sagemaker"] }] },
    });
    const decide = (boundary: Boundary, kind: "transcript" | "record" = "transcript") =>
      decideBoundaries(narrow, [{ processor: processor(boundary), kinds: [kind] }]).outcome;
    expect(decide(account)).toBe("allowed");
    expect(decide({ ...account, region: "us-east-1" })).toBe("refused");
    expect(decide({ ...account, service: "bedrock" })).toBe("refused");
    expect(decide(account, "record")).toBe("refused");
  });
});
