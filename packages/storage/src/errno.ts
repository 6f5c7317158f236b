/** Whether `error` is a Node.js system error with one of the given `code`s (`ENOENT`, ...). */
export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  return (
    error instanceof Error && "code" in error && typeof error.code === "string" && codes.includes(error.code)
  );
}
