/**
 * Test support: Python programs run with the release's wheel, as a person installs it. Pulumi's Python SDK and what
 * it depends on come from a wheelhouse (pinned by scripts/pulumi-build/python/requirements.txt, with their hashes),
 * downloaded once into `$HELPDESK_CACHE/python-wheelhouse` and made again when the requirements or the Python change,
 * so that `pip install` in a test reads files only.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

/** The project's toolchain cache (scripts/lib/env.sh `HELPDESK_CACHE`). */
export const helpdeskCache = process.env.HELPDESK_CACHE ?? join(homedir(), ".cache", "pulumi-helpdesk");
/** The virtualenv with Pulumi's Python SDK that scripts/setup.sh --test makes; its Python is the one tests use. */
export const toolVenv = process.env.HELPDESK_PYTHON_VENV ?? join(helpdeskCache, "python-venv");
/** The requirements of Pulumi programs in Python, with their hashes. */
const requirements = join(repoRoot, "scripts", "pulumi-build", "python", "requirements.txt");

/**
 * Installs the repository's generated Python SDK (`sdk/python`, `pulumi_helpdesk`) for one test's programs: into
 * `dir/.python-packages`, beside (never into) the shared virtualenv {@link toolVenv}, and from a copy in
 * `dir/.pulumi-helpdesk-sdk`, since pip builds a local project in place (build/, *.egg-info).
 *
 * @param dir the test's folder (a project's, or a work folder) that receives both
 * @param env the environment pip runs in, and the base of the one returned
 * @returns `env` with the virtualenv's bin/ first on PATH (its `python` has Pulumi's Python SDK), the packages on
 *   `PYTHONPATH`, and no bytecode written
 * @throws Error with pip's output when the install fails
 */
export async function withPythonSdk(dir: string, env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const site = join(dir, ".python-packages");
  const sdk = join(dir, ".pulumi-helpdesk-sdk");
  cpSync(join(repoRoot, "sdk", "python"), sdk, { recursive: true });
  const pip = ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation"];
  const ran = await runCommand(join(toolVenv, "bin", "python"), [...pip, "--target", site, sdk], { cwd: dir, env });
  if (ran.code !== 0) throw new Error(shown("pip install sdk/python", ran));
  return {
    ...env,
    PATH: `${join(toolVenv, "bin")}${delimiter}${env.PATH ?? ""}`,
    PYTHONPATH: site,
    PYTHONDONTWRITEBYTECODE: "1",
  };
}

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
