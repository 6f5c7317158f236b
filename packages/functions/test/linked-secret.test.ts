import { CARTESIA_SECRET } from "@voxtrail/workflow";
import { afterEach, describe, expect, it, vi } from "vitest";
import { linkedSecret } from "../src/lambda/linked-secret";

describe("linkedSecret", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads a linked secret's value through the sst SDK when first asked, not before", async () => {
    const read = linkedSecret(CARTESIA_SECRET);
    // Linked after the source was made: the value is looked up at first use.
    vi.stubEnv(
      `SST_RESOURCE_${CARTESIA_SECRET}`,
      JSON.stringify({ type: "sst.sst.Secret", value: "sk_test_linked" }),
    );
    await expect(read()).resolves.toBe("sk_test_linked");
  });

  it("names a secret that is not linked, with no value", async () => {
    await expect(linkedSecret("NotLinkedSecret")()).rejects.toMatchObject({
      name: "InvalidInput",
      message: "the secret NotLinkedSecret is not linked to this function",
    });
  });
});
