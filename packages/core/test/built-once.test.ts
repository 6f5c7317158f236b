import { describe, expect, it } from "vitest";
import { builtOnce } from "../src/index";

describe("builtOnce", () => {
  it("keeps a built value, but not a failed build: the next call builds again", async () => {
    let builds = 0;
    const value = builtOnce(async () => {
      builds += 1;
      if (builds === 1) throw new Error("AccessDenied at start-up");
      return builds;
    });
    await expect(value()).rejects.toThrow("AccessDenied at start-up");
    expect(await Promise.all([value(), value()])).toEqual([2, 2]);
    expect(await value()).toBe(2);
    expect(builds).toBe(2);
  });
});
