/**
 * Whether a process with this id runs on this machine: signal 0 checks without signalling, and
 * EPERM means it exists but belongs to someone else.
 *
 * @example
 * processAlive(process.pid); // true
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
