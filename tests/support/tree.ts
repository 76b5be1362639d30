/**
 * A folder's files and their contents, for the tests that compare a generated SDK with what the generator writes now
 * (tests/sdk/*.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * Every file below `dir` (dot files included), as paths relative to it, with their contents (UTF-8).
 *
 * @param dir an existing folder
 * @param skip relative paths left out, e.g. a build's output folder (`target/`)
 * @returns relative path → text
 */
export function tree(dir: string, skip: (path: string) => boolean = () => false): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = relative(dir, join(entry.parentPath, entry.name));
    if (!skip(path)) files.set(path, readFileSync(join(dir, path), "utf8"));
  }
  return files;
}
