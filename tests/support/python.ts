/**
 * Test support: Python programs run with the release's wheel, as a person installs it. Pulumi's Python SDK and what
 * it depends on come from a wheelhouse (pinned by scripts/pulumi-build/python/requirements.txt, with their hashes),
 * downloaded once into `$HELPDESK_CACHE/python-wheelhouse` and made again when the requirements or the Python change,
 * so that `pip install` in a test reads files only.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./package.js";
import { runCommand, shown } from "./processes.js";

/** The project's toolchain cache (scripts/lib/env.sh `HELPDESK_CACHE`). */
export const helpdeskCache = process.env.HELPDESK_CACHE ?? join(homedir(), ".cache", "pulumi-helpdesk");
/** The virtualenv with Pulumi's Python SDK that scripts/setup.sh --test makes; its Python is the one tests use. */
export const toolVenv = process.env.HELPDESK_PYTHON_VENV ?? join(helpdeskCache, "python-venv");
/** The requirements of Pulumi programs in Python, with their hashes. */
const requirements = join(repoRoot, "scripts", "pulumi-build", "python", "requirements.txt");

/** Runs a command in `cwd`; throws with its output when it fails. */
export async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const ran = await runCommand(command, args, {
    cwd,
    env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_NO_INPUT: "1" },
  });
  if (ran.code !== 0) throw new Error(shown(`${command} ${args.join(" ")}`, ran));
  return ran.stdout;
}

/**
 * The wheelhouse of Pulumi's Python SDK and its dependencies for this Python, downloaded once with their hashes.
 *
 * @param python the Python whose platform the wheels are for
 * @returns the wheelhouse folder
 * @throws Error with pip's output when the download fails
 */
export async function wheelhouse(python: string): Promise<string> {
  const dir = join(helpdeskCache, "python-wheelhouse");
  const stamp = createHash("sha256")
    .update(readFileSync(requirements))
    .update(await mustRun(python, ["-VV"], repoRoot))
    .digest("hex");
  if (existsSync(join(dir, ".requirements-hash")) && readFileSync(join(dir, ".requirements-hash"), "utf8") === stamp)
    return dir;
  const making = `${dir}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  try {
    await mustRun(
      python,
      ["-m", "pip", "download", "--quiet", "--require-hashes", "--only-binary=:all:", "-r", requirements, "-d", making],
      repoRoot,
    );
    writeFileSync(join(making, ".requirements-hash"), stamp);
    rmSync(dir, { recursive: true, force: true });
    renameSync(making, dir);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return dir;
}
