/**
 * examples/python with no Node.js (see no-node-desks.ts): a fresh virtualenv gets only the release's wheel
 * `pulumi_helpdesk`, and what it depends on (Pulumi's Python SDK, pinned by scripts/pulumi-build/python/requirements.txt)
 * from a wheelhouse: `pip install --no-index --find-links <wheelhouse> <wheel>`, so pip resolves the wheel's own
 * requirements (the wheelhouse: tests/support/python.ts). The program
 * (tests/no-node/python/) asserts that `node` and `npm` cannot be found, then runs examples/python/__main__.py.
 * The virtualenv's bin/ is on PATH (the Python host built here finds `python` there).
 */
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../support/package.js";
import { mustRun, toolVenv, wheelhouse } from "../support/python.js";
import { sharedRelease } from "../support/release.js";
import { toolAvailable } from "../support/tools.js";
import { describeDownloadedPlugin, VERSION } from "./no-node-desks.js";

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
