/**
 * Making a file, and a name in a directory, durable: fsync, defined once for every room that writes files it then
 * acknowledges (the token cache, `auth/token-cache.ts`; the emulator's data file import, `emulator/store/data-file.ts`).
 *
 * The failure rule, one for both: this project never acknowledges a write that a crash can undo, so a failed fsync is
 * an error the caller reports (and then does not go on as if the write had happened). The only failures passed over
 * are those that say "this file system has no directory sync at all", where there is nothing more a program can do and
 * refusing would only make the file system unusable: the rename is then as durable as that file system makes it.
 *
 * - Linux: `EINVAL`, the response of a file system without an fsync for directories (CIFS/SMB mounts; /proc and /sys).
 *   A FUSE file system that leaves fsyncdir out is already responded with success by the kernel.
 * - NetBSD and other BSDs: `EBADF`, fsync refused on a directory opened read-only (a directory cannot be opened for
 *   writing). The descriptor here was just opened, so `EBADF` cannot mean anything else.
 * - HP-UX: `EISDIR`.
 * (GNU coreutils' `ignorable_sync_errno` passes over the same three codes, Dovecot's `fdatasync_path` the first two.)
 * - Windows: no directory sync is attempted. Node.js opens a directory there, but `FlushFileBuffers` on it fails with
 *   `EPERM` (nodejs/node#3879), and Windows offers no other way to flush a directory: a rename is as durable as NTFS
 *   makes it, the one place where the rule above cannot be kept.
 *   Passing over `EPERM` instead would also pass over a real permission failure on POSIX, so the platform decides.
 * Everything else (`EIO`, `ENOSPC`, `EDQUOT`, a directory that cannot be opened, ...) is thrown: the data or the name
 * may not be on disk.
 * @home when a write is durable; which fsync failures are passed over
 */
import { closeSync, fsyncSync, openSync } from "node:fs";

/** What fsync of a directory returns on a file system that has none (see the module doc). */
const NO_DIRECTORY_SYNC: ReadonlySet<string> = new Set(["EINVAL", "EBADF", "EISDIR"]);

/**
 * Makes the names in `dir` durable: a rename into it, a file created, linked or removed in it survives a crash.
 * Does nothing on Windows, and passes over the response of a file system without directory sync (see the module doc).
 *
 * @param dir an existing directory (absolute, or relative to the working directory)
 * @throws NodeJS.ErrnoException (`node:fs`'s error, its `code` set) when `dir` cannot be opened or its fsync fails
 */
export function syncDirectory(dir: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } catch (error) {
    if (!NO_DIRECTORY_SYNC.has(String((error as NodeJS.ErrnoException).code))) throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the content of a file durable (fsync). It is opened for reading (a read-only file can be synced on POSIX), on
 * Windows for writing (nothing is written): Windows refuses the flush of a handle opened for reading (`EPERM`,
 * nodejs/node#3879).
 *
 * @param file an existing regular file (on Windows, one the process may write)
 * @throws NodeJS.ErrnoException when the file cannot be opened or its fsync fails
 */
export function syncFile(file: string): void {
  const fd = openSync(file, process.platform === "win32" ? "r+" : "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
