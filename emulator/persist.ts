/**
 * Atomic file writes for the emulator's durability file.
 */
import { open, rename, rm, mkdir } from "node:fs/promises";
import { dirname, basename, join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * Writes `data` to `path` atomically: a temporary file in the same directory is written and fsync'ed, then renamed
 * over `path` (rename is atomic within one file system, POSIX rename(2)), then the directory is fsync'ed so the
 * rename itself is durable. A reader sees either the old or the new content, never a torn file.
 *
 * @param path destination file; its directory is created when missing
 * @param data the full new content (UTF-8)
 * @throws the underlying fs error (the temporary file is removed first)
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(tmp, "w", 0o600);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  try {
    const dirHandle = await open(dir, "r");
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename already happened.
  }
}
