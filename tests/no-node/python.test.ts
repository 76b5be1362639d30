/**
 * examples/python with no Node.js (see no-node-desks.ts): a fresh virtualenv gets only the release's wheel
 * `pulumi_helpdesk`, and what it depends on (Pulumi's Python SDK, pinned by scripts/pulumi-build/python/requirements.txt)
 * from a wheelhouse: `pip install --no-index --find-links <wheelhouse> <wheel>`, so pip resolves the wheel's own
 * requirements (the wheelhouse: tests/support/python.ts). The program
 * (tests/no-node/python/) asserts that `node` and `npm` cannot be found, then runs examples/python/__main__.py.
 * The virtualenv's bin/ is on PATH (the Python host built here finds `python` there).
 */
import { cpSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { describeDownloadedPlugin, releaseWheelVenv } from "./no-node-desks.js";

describeDownloadedPlugin("examples/python with no Node.js: the wheel alone, the plugin downloaded by Pulumi", {
  hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
  project: "helpdesk-python-no-node",
  prepare: async (work, programDir) => {
    const venvBin = await releaseWheelVenv(work);
    cpSync(join(repoRoot, "tests", "no-node", "python"), programDir, { recursive: true });
    return {
      pathDirs: [venvBin],
      env: {
        HELPDESK_EXAMPLE_PROGRAM: join(repoRoot, "examples", "python", "__main__.py"),
        PYTHONDONTWRITEBYTECODE: "1",
      },
    };
  },
});
