/**
 * examples/python, a Pulumi program in Python, run by the real `pulumi` with pulumi-language-python (built by
 * scripts/setup.sh --test from sdk/v3 v3.68.0) against two emulators: see two-helpdesks.ts. It imports the Python SDK
 * `pulumi_helpdesk` that the repository keeps in sdk/python/ (generated from the schema), installed with pip for this run only; Pulumi's Python
 * SDK comes from the virtualenv $HELPDESK_PYTHON_VENV, whose bin/ goes first on PATH (the language host built here
 * ignores Pulumi.yaml's runtime.options.virtualenv).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { toolVenv as venv, withPythonSdk } from "../support/python.js";
import { onPath, toolAvailable } from "../support/tools.js";
import { describeTwoHelpdesks, pluginBuilt } from "./two-helpdesks.js";

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
  prepare: (env, workDir) => withPythonSdk(workDir, env),
});
