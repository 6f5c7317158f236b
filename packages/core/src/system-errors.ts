/** What a failed system call means to the user: a name to match on, and what to do. */
export interface SystemErrorMeaning {
  name: string;
  message: string;
}

/**
 * The system errors a run can meet on this machine's disks, by `code`, each with a name and a
 * message that says what happened and what to do, and never a path (which holds caller data).
 */
const MEANINGS: Record<string, SystemErrorMeaning> = {
  ENOSPC: {
    name: "DiskFull",
    message:
      "no space left on the device (ENOSPC): free some space where the store and the temp directory are, then run the same command again (finished jobs are skipped)",
  },
  EDQUOT: {
    name: "DiskFull",
    message: "the disk quota is used up (EDQUOT): free some space, then run the same command again",
  },
  EACCES: {
    name: "PermissionDenied",
    message:
      "permission denied (EACCES) reading or writing a file: check that you may read the input and write the store",
  },
  EPERM: {
    name: "PermissionDenied",
    message: "operation not permitted (EPERM) on a file: check the input's and the store's permissions",
  },
  EROFS: {
    name: "ReadOnlyFileSystem",
    message: "the file system is read-only (EROFS): choose a writable --store",
  },
  ENOENT: {
    name: "FileVanished",
    message:
      "a file was not there when it was read (ENOENT): it was moved or deleted during the run; run again",
  },
  EISDIR: { name: "NotAFile", message: "a directory was found where a file was expected (EISDIR)" },
  ENAMETOOLONG: {
    name: "NameTooLong",
    message: "a file name is too long for this file system (ENAMETOOLONG): rename the input",
  },
  EMFILE: {
    name: "TooManyOpenFiles",
    message: "too many open files (EMFILE): lower --concurrency or raise the limit (ulimit -n)",
  },
  ENFILE: {
    name: "TooManyOpenFiles",
    message: "the system's open file table is full (ENFILE): lower --concurrency and run again",
  },
  EIO: { name: "DiskError", message: "the disk reported an input/output error (EIO): check the device" },
};

/**
 * The meaning of a failed system call (an error with a `code` such as `ENOSPC`), or `undefined`
 * for any other error. Node puts the path in a system error's message; the meaning never does.
 *
 * @example
 * systemErrorMeaning(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }));
 * // { name: "DiskFull", message: "no space left on the device (ENOSPC): free some space ..." }
 */
export function systemErrorMeaning(error: unknown): SystemErrorMeaning | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? MEANINGS[code] : undefined;
}
