import { describe, expect, it } from "vitest";
import { TaskTokens } from "../src/state-machine/task-tokens";

describe("TaskTokens, as Step Functions keeps a callback Task's token", () => {
  it("resumes a waiting token once, with its output; the token is gone after", async () => {
    const tokens = new TaskTokens();
    const token = tokens.mint();
    const waiting = tokens.wait(token, 60_000);
    expect(await tokens.resume(token, { status: "COMPLETED" })).toBe("resumed");
    await expect(waiting).resolves.toEqual({ status: "COMPLETED" });
    expect(await tokens.resume(token, { status: "COMPLETED" })).toBe("gone");
  });

  it("fails a wait that outlasts its time with States.Timeout, and forgets the token", async () => {
    const tokens = new TaskTokens();
    const token = tokens.mint();
    await expect(tokens.wait(token, 5)).rejects.toMatchObject({ name: "States.Timeout" });
    expect(await tokens.resume(token, {})).toBe("gone");
  });

  it("knows only its own tokens, and forgets one whose Task failed", async () => {
    const tokens = new TaskTokens();
    expect(tokens.isToken("local-task-token-made-up")).toBe(false);
    expect(await tokens.resume("not a token", {})).toBe("gone");
    const token = tokens.mint();
    expect(tokens.isToken(token)).toBe(true);
    const waiting = tokens.wait(token, 60_000);
    tokens.release(token);
    expect(tokens.isToken(token)).toBe(false);
    expect(await tokens.resume(token, {})).toBe("gone");
    // A released wait never settles: the Task it belonged to has already failed.
    expect(await Promise.race([waiting.then(() => "settled"), Promise.resolve("pending")])).toBe("pending");
  });
});
