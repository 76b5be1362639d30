/**
 * examples/python with no Node.js (see no-node-desks.ts): a fresh virtualenv gets only the release's wheel
 * `pulumi_helpdesk`, and what it depends on (Pulumi's Python SDK, pinned by scripts/pulumi-build/python/requirements.txt)
 * from a wheelhouse: `pip install --no-index --find-links <wheelhouse> <wheel>`, so pip resolves the wheel's own
 * requirements. The wheelhouse is downloaded once, with the requirements' hashes, into
 * `$HELPDESK_CACHE/python-wheelhouse` (made again when the requirements or the Python change). The program
 * (tests/no-node/python/) asserts that `node` and `npm` cannot be found, then runs examples/python/__main__.py.
 * The virtualenv's bin/ is on PATH (the Python host built here finds `python` there).
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../support/package.js";
import { runCommand, shown } from "../support/processes.js";
import { sharedRelease } from "../support/release.js";
import { toolAvailable } from "../support/tools.js";
import { describeDownloadedPlugin, VERSION } from "./no-node-desks.js";

const cache = process.env.HELPDESK_CACHE ?? join(homedir(), ".cache", "pulumi-helpdesk");
const toolVenv = process.env.HELPDESK_PYTHON_VENV ?? join(cache, "python-venv");
const requirements = join(repoRoot, "scripts", "pulumi-build", "python", "requirements.txt");

/** Runs a command in `cwd`; throws with its output when it fails. */
async function mustRun(command: string, args: string[], cwd: string): Promise<string> {
  const ran = await runCommand(command, args, { cwd, env: { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: "1", PIP_NO_INPUT: "1" } });
  if (ran.code !== 0) throw new Error(shown(`${command} ${args.join(" ")}`, ran));
  return ran.stdout;
}

/**
 * The wheelhouse of Pulumi's Python SDK and its dependencies for this Python, downloaded once with their hashes.
 *
 * @param python the Python whose platform the wheels are for
 * @returns the wheelhouse folder
 */
async function wheelhouse(python: string): Promise<string> {
  const dir = join(cache, "python-wheelhouse");
  const stamp = createHash("sha256").update(readFileSync(requirements)).update(await mustRun(python, ["-VV"], repoRoot)).digest("hex");
  if (existsSync(join(dir, ".requirements-hash")) && readFileSync(join(dir, ".requirements-hash"), "utf8") === stamp) return dir;
  const making = `${dir}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  try {
    await mustRun(python, ["-m", "pip", "download", "--quiet", "--require-hashes", "--only-binary=:all:", "-r", requirements, "-d", making], repoRoot);
    writeFileSync(join(making, ".requirements-hash"), stamp);
    rmSync(dir, { recursive: true, force: true });
    renameSync(making, dir);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return dir;
}

describeDownloadedPlugin("examples/python with no Node.js: the wheel alone, the plugin downloaded by Pulumi", {
  hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
  project: "helpdesk-python-no-node",
  prepare: async (work, programDir) => {
    const python = join(toolVenv, "bin", "python");
    if (!toolAvailable(`the Python virtualenv ${toolVenv} (scripts/setup.sh --test)`, existsSync(python))) throw new Error(`no ${python}`);
    const wheel = join(await sharedRelease(), `pulumi_helpdesk-${VERSION}-py3-none-any.whl`);
    const venv = join(work, "venv");
    await mustRun(python, ["-m", "venv", venv], work);
    await mustRun(join(venv, "bin", "python"), ["-m", "pip", "install", "--quiet", "--no-index", "--find-links", await wheelhouse(python), wheel], work);
    cpSync(join(repoRoot, "tests", "no-node", "python"), programDir, { recursive: true });
    return {
      pathDirs: [join(venv, "bin")],
      env: { HELPDESK_EXAMPLE_PROGRAM: join(repoRoot, "examples", "python", "__main__.py"), PYTHONDONTWRITEBYTECODE: "1" },
    };
  },
});
