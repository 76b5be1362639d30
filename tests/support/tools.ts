/**
 * Test support: whether the tools a suite needs are installed. Under `CI=true` a missing tool fails the suite: CI
 * never passes by skipping.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Tells whether a tool the suite needs is there. Under `CI=true` a missing tool throws: CI must never pass by skipping.
 *
 * @param what the tool, for the message
 * @param present whether it was found
 */
export function toolAvailable(what: string, present: boolean): boolean {
  if (present) return true;
  if (process.env.CI === "true")
    throw new Error(`${what} is missing; run scripts/setup.sh --test (npm test does) before the suite`);
  console.warn(`SKIPPING: ${what} is missing (run \`npm test\`, which sets it up)`);
  return false;
}

/** @returns whether `command` is found on PATH */
export function onPath(command: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v "$1"`, "sh", command], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/**
 * A folder of links to every command of /usr/bin and /bin but `commands`: the system's `PATH` with tools taken away.
 *
 * @param dir the folder to create
 * @param commands the commands left out, e.g. `["mvn"]`
 * @returns `dir`
 */
export function systemWithout(dir: string, commands: ReadonlySet<string>): string {
  mkdirSync(dir, { recursive: true });
  for (const from of ["/usr/bin", "/bin"]) {
    for (const name of readdirSync(from)) {
      if (commands.has(name)) continue;
      try {
        symlinkSync(join(from, name), join(dir, name));
      } catch {
        // the same name in both folders: the first one wins, as on PATH
      }
    }
  }
  return dir;
}
