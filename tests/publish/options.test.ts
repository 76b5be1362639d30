/**
 * `npm run publish`'s refusals of bad input, before any registry is asked: an unknown target, an unknown option, a
 * release folder that is not one (no SHA256SUMS), and one whose files do not match it. Each is one line naming what
 * is wrong and what is allowed, and exit status 1. (Publishing itself: registries.test.ts.)
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

let work: string;

/** `npm run publish -- <args>` with no registry configured (none may be asked). */
function publish(args: string[]) {
  return runCommand("npm", ["run", "--silent", "publish", "--", ...args], {
    cwd: repoRoot,
    env: { ...process.env, npm_config_registry: "http://127.0.0.1:9/" },
  });
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-publish-options-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("npm run publish refuses bad input with one clear line", () => {
  it("an unknown target, naming the allowed ones", async () => {
    const ran = await publish(["--only", "npm,cargo", "--release", work]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe("error: unknown target cargo (allowed: github, npm, pypi, maven, go)\n");
  });

  it("an unknown option, naming the allowed ones", async () => {
    const ran = await publish(["--force"]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      "error: Unknown option '--force' (allowed: --only, --dry-run, --release, --go-remote, --go-proxy, --github-release-folder)\n",
    );
  });

  it("an option without its value, naming the allowed ones", async () => {
    const ran = await publish(["--release"]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      "error: Option '--release <value>' argument missing (allowed: --only, --dry-run, --release, --go-remote, --go-proxy, --github-release-folder)\n",
    );
  });

  it("a folder with no SHA256SUMS: not a release", async () => {
    const ran = await publish(["--release", work, "--dry-run", "--only", "github", "--github-release-folder", work]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`error: release: ${work} has no SHA256SUMS: run npm run release\n`);
  });

  it("a file that does not match SHA256SUMS", async () => {
    writeFileSync(join(work, "a.tgz"), "changed");
    writeFileSync(join(work, "SHA256SUMS"), `${"0".repeat(64)}  a.tgz\n`);
    const ran = await publish(["--release", work, "--dry-run", "--only", "github", "--github-release-folder", work]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(`error: release: ${work}/a.tgz does not match SHA256SUMS: run npm run release\n`);
  });
});
