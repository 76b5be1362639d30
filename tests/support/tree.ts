/**
 * A folder's files and their contents, for the tests that compare a generated SDK with what the generator writes now
 * (tests/sdk/*.test.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect } from "vitest";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { testTempDir } from "./temp.js";

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

/**
 * Regenerates an SDK into a temporary folder with its script and expects the repository's copy to be the same, file
 * for file: the SDKs in sdk/ are the generators' output, never edited by hand, never stale.
 *
 * @param script the generator's script under scripts/sdk/ (e.g. `python.sh`), which takes the output folder
 * @param sdk the SDK's folder under sdk/ (e.g. `python`)
 * @param skip relative paths left out of both, e.g. a build's output folder (`target/`)
 * @throws Error with the script's output when it fails; an assertion error naming the first stale or missing file
 */
export async function expectSdkFresh(
  script: string,
  sdk: string,
  skip: (path: string) => boolean = () => false,
): Promise<void> {
  const out = join(testTempDir(`helpdesk-${sdk}-sdk-`), sdk);
  const ran = await runCommand("bash", [join(repoRoot, "scripts", "sdk", script), out], {
    cwd: repoRoot,
    env: process.env,
  });
  if (ran.code !== 0) throw new Error(shown(`scripts/sdk/${script}`, ran));
  const fresh = tree(out, skip);
  const committed = tree(join(repoRoot, "sdk", sdk), skip);
  expect([...committed.keys()].sort(), `the files of sdk/${sdk} (run scripts/sdk/${script})`).toEqual(
    [...fresh.keys()].sort(),
  );
  for (const [path, text] of fresh)
    expect(committed.get(path), `sdk/${sdk}/${path} is stale: run scripts/sdk/${script}`).toBe(text);
}
