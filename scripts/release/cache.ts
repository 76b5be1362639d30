/**
 * The project's cache of tools (`$HELPDESK_CACHE`, default `~/.cache/pulumi-helpdesk`) and the pinned Python
 * virtualenvs made in it: the release's build virtualenv (scripts/release/python.ts) and the publishing one (twine:
 * scripts/publish/pypi.ts). Imports only Node.js and kernel/package-version.ts, so the publish job runs it with no
 * node_modules and no build.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { PACKAGE_NAME } from "../../kernel/package-version.ts";

/** @returns the project's cache folder: `$HELPDESK_CACHE`, default `~/.cache/pulumi-helpdesk` (as scripts/lib/env.sh) */
export function cacheDir(): string {
  return process.env.HELPDESK_CACHE || join(homedir(), ".cache", PACKAGE_NAME);
}

/**
 * Runs a command, its output shown only when it fails.
 *
 * @returns its stdout
 * @throws Error naming the command, with its output
 */
export function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  try {
    return execFileSync(command, args, { ...options, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(" ")} failed: ${failed.message}\n${failed.stdout ?? ""}${failed.stderr ?? ""}`,
      { cause: error },
    );
  }
}

/**
 * Makes (or reuses) a virtualenv `$HELPDESK_CACHE/<name>` holding exactly the pinned, hashed wheels of a requirements
 * file (`pip install --require-hashes --only-binary=:all:`), remade only when the file or the Python change, and
 * returns its Python. The build virtualenv (scripts/release/python.ts `buildVenvPython`) and the publishing one (twine:
 * scripts/publish/pypi.ts) are made this way.
 *
 * @param name the virtualenv's folder name in the cache, e.g. `"python-build-venv"`
 * @param requirements the requirements file (every line pinned with `--hash=sha256:`)
 * @param purpose what needs it, for the error messages, e.g. `"the release builds the Python SDK"`
 * @returns the path of the virtualenv's `bin/python`
 * @throws Error when there is no Python >= 3.11 (`$HELPDESK_PYTHON`, default `python3`) or pip cannot install the requirements
 */
export function pinnedVenvPython(name: string, requirements: string, purpose: string): string {
  const python = process.env.HELPDESK_PYTHON || "python3";
  let described: string;
  try {
    described = run(python, ["-c", "import sys; print(sys.executable); print(sys.version)"]);
  } catch (error) {
    throw new Error(`no ${python}: ${purpose} with Python >= 3.11 (set HELPDESK_PYTHON to another)`, { cause: error });
  }
  if (run(python, ["-c", "import sys; print(int(sys.version_info >= (3, 11)))"]).trim() !== "1") {
    throw new Error(
      `${python} is ${described.split("\n")[1]}; ${purpose} with Python >= 3.11 (set HELPDESK_PYTHON to another)`,
    );
  }
  const venv = join(cacheDir(), name);
  const stamp = createHash("sha256").update(readFileSync(requirements)).update(described).digest("hex");
  const venvPython = join(venv, "bin", "python");
  const stampFile = join(venv, ".requirements-hash");
  if (existsSync(venvPython) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return venvPython;
  // Made beside and moved into place, so a build running at the same time never sees half a virtualenv. A moved
  // virtualenv works when run as `<venv>/bin/python -m ...` (only its scripts' #! lines name the old path).
  const making = `${venv}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  try {
    run(python, ["-m", "venv", making]);
    run(join(making, "bin", "python"), [
      "-m",
      "pip",
      "install",
      "--quiet",
      "--disable-pip-version-check",
      "--no-input",
      "--require-hashes",
      "--only-binary=:all:",
      "-r",
      requirements,
    ]);
    writeFileSync(join(making, ".requirements-hash"), stamp);
    rmSync(venv, { recursive: true, force: true });
    renameSync(making, venv);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return venvPython;
}
