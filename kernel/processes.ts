/**
 * Whether a process lives on this machine, defined once for the two places that ask it about a process named in a
 * file: the owner of an emulator import lock (`emulator/store/data-file.ts`) and the process that sent a pending token
 * refresh (`auth/grant.ts`). Both use the response to decide whether to step in for a process that may be gone, so a
 * doubt counts as alive: stepping in for a live process is the harm (a lock taken over, a refresh reported as lost).
 * @home whether a process named in a file still exists
 */

/**
 * @param pid a process id as recorded by another process on this machine
 * @returns false when `pid` names no single process (not a positive integer: `kill` would signal a process group) or
 *   the system says there is no such process (`ESRCH`); true otherwise, also for a process of another user (`EPERM`)
 */
export function processExists(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0: only the existence and permission checks (kill(2))
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
