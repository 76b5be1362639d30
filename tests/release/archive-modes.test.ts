/**
 * A plugin archive's bytes do not depend on the builder's umask: `writeArchive` (scripts/release/release.ts, the
 * real code) run under umask 077 and under umask 022, each time on an executable made under that umask, writes the
 * same bytes, the executable 0755 and LICENSE 0644. (A stand-in of a few bytes for the executable: the modes and the
 * tar headers are what is looked at, and the release's own archives are checked in tests/release/executable.test.ts.)
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { executableName } from "../../scripts/release/executable.ts";
import { archiveEntries } from "../../scripts/release/release.ts";

const TARGET = { os: "linux", arch: "x64" } as const;
let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-archive-modes-"));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Makes an executable and its archive in `work/<umask>/` by a shell running under `umask`; returns the archive. */
async function archiveUnder(umask: string): Promise<string> {
  const dir = join(work, umask);
  const script = [
    `umask ${umask}`,
    'mkdir -p "$1/built" && printf "#!/bin/sh\\n" > "$1/built/$2" && chmod u+x "$1/built/$2"',
    // The module's path in the environment, not in argv[1]: release.ts runs the whole release when argv[1] names it.
    `"$3" --input-type=module -e 'const { writeArchive } = await import(process.env.RELEASE_TS); writeArchive(process.argv[1], process.argv[2], ${JSON.stringify(TARGET)});' "$1/built/$2" "$1/plugin.tar.gz"`,
  ].join("\n");
  const env = { ...process.env, RELEASE_TS: join(repoRoot, "scripts/release/release.ts") };
  const ran = await runCommand("bash", ["-c", script, "archive", dir, executableName(TARGET), process.execPath], {
    cwd: work,
    env,
  });
  if (ran.code !== 0) throw new Error(shown(`writeArchive under umask ${umask}`, ran));
  return join(dir, "plugin.tar.gz");
}

describe("the plugin archive", () => {
  it("is the same bytes under umask 077 and 022, with the executable 0755 and LICENSE 0644", async () => {
    const strict = await archiveUnder("077");
    const usual = await archiveUnder("022");
    const listing = execFileSync("tar", ["-tvzf", strict], { encoding: "utf8" }).trim().split("\n");
    expect(
      listing.map((line) =>
        line
          .replace(/ -> .*$/, "")
          .split(/\s+/)
          .at(-1),
      ),
    ).toEqual(archiveEntries(TARGET));
    expect(listing.find((line) => line.endsWith(` ${executableName(TARGET)}`))).toMatch(/^-rwxr-xr-x 0\/0 /);
    expect(listing.find((line) => line.endsWith(" LICENSE"))).toMatch(/^-rw-r--r-- 0\/0 /);
    expect(readFileSync(strict).equals(readFileSync(usual)), "the archives built under umask 077 and 022 differ").toBe(
      true,
    );
  });
});
