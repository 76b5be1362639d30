/**
 * examples/python, a Pulumi program in Python, run by the real `pulumi` with pulumi-language-python (built by
 * scripts/setup.sh --test from sdk/v3 v3.68.0) against two emulators: see two-helpdesks.ts. It imports the Python SDK
 * `pulumi_helpdesk` that the repository keeps in sdk/python/ (generated from the schema), installed with pip for this run only; Pulumi's Python
 * SDK comes from the virtualenv $HELPDESK_PYTHON_VENV, whose bin/ goes first on PATH (the language host built here
 * ignores Pulumi.yaml's runtime.options.virtualenv).
 */
import { cpSync, existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { describeTwoHelpdesks, pluginBuilt, repoRoot } from "./two-helpdesks.js";
import { onPath, toolAvailable } from "../support/tools.js";
import { runCommand, shown } from "../support/processes.js";

const venv =
  process.env.HELPDESK_PYTHON_VENV ??
  join(process.env.HELPDESK_CACHE ?? join(homedir(), ".cache", "pulumi-helpdesk"), "python-venv");
const sdk = join(repoRoot, "sdk", "python");

describeTwoHelpdesks("a Python program with two help desks (examples/python)", {
  example: "python",
  ready: () =>
    toolAvailable("the Pulumi CLI", onPath("pulumi")) &&
    toolAvailable(
      "pulumi-language-python",
      onPath("pulumi-language-python") && onPath("pulumi-language-python-exec"),
    ) &&
    toolAvailable(`the Python virtualenv ${venv}`, existsSync(join(venv, "bin", "python"))) &&
    toolAvailable(
      "the generated Python SDK sdk/python/ (scripts/sdk/python.sh)",
      existsSync(join(sdk, "pyproject.toml")),
    ) &&
    toolAvailable(
      "the provider plugin (plugin/pulumi-resource-helpdesk and the build's dist/provider/native/)",
      pluginBuilt(),
    ),
  prepare: async (env, workDir) => {
    // pip builds a local project in place: build a copy, and install it beside (not into) the shared virtualenv.
    const copy = join(workDir, "sdk");
    const site = join(workDir, "site-packages");
    cpSync(sdk, copy, { recursive: true });
    const ran = await runCommand(
      join(venv, "bin", "python"),
      [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--no-build-isolation",
        "--target",
        site,
        copy,
      ],
      { cwd: workDir, env },
    );
    if (ran.code !== 0) throw new Error(shown("pip install sdk/python", ran));
    return {
      ...env,
      PATH: `${join(venv, "bin")}${delimiter}${env.PATH ?? ""}`,
      PYTHONPATH: site,
      PYTHONDONTWRITEBYTECODE: "1",
    };
  },
});
