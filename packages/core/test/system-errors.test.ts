import { describe, expect, it } from "vitest";
import { systemErrorMeaning } from "../src/system-errors";

/** A system error as Node makes it: the code, and the path in the message. */
const systemError = (code: string) =>
  Object.assign(new Error(`${code}: failed, open '/home/maria/calls/maria-4271.wav'`), { code });

describe("systemErrorMeaning: a failed system call by its meaning, never its path", () => {
  it.each([
    ["ENOSPC", "DiskFull", /free some space/],
    ["EACCES", "PermissionDenied", /permission denied/],
    ["ENOENT", "FileVanished", /moved or deleted/],
    ["EMFILE", "TooManyOpenFiles", /--concurrency/],
    ["EROFS", "ReadOnlyFileSystem", /--store/],
  ])("names %s as %s and says what to do", (code, name, hint) => {
    const meaning = systemErrorMeaning(systemError(code));
    expect(meaning?.name).toBe(name);
    expect(meaning?.message).toMatch(hint);
    expect(meaning?.message).not.toContain("maria");
  });

  it("leaves errors that are not system calls' alone", () => {
    expect(systemErrorMeaning(new Error("ENOSPC in a message only"))).toBeUndefined();
    expect(systemErrorMeaning(Object.assign(new Error("x"), { code: "ERR_SOMETHING" }))).toBeUndefined();
    expect(systemErrorMeaning(undefined)).toBeUndefined();
  });
});
