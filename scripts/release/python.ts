/**
 * Builds the Python SDK (`pulumi_helpdesk`, kernel/names.ts `PYTHON_PACKAGE`) of a release: its wheel and its sdist, with PyPA's `build`
 * (`python -m build`) from the generated project the repository keeps in `sdk/python/` (scripts/sdk/python.sh writes
 * it with helpdesk-codegen, with package.json's version in `pyproject.toml` and in `pulumi_helpdesk/pulumi-plugin.json`, whose `server` is the
 * schema's `pluginDownloadURL`: so `pip install` of the wheel is all a Python program needs to have Pulumi download
 * the plugin).
 *
 * - `build` and setuptools come from a virtualenv of their own, `$HELPDESK_CACHE/python-build-venv`, installed with
 *   pinned hashes from `python-requirements.txt` (as scripts/setup.sh makes the virtualenv of Python programs) and
 *   remade only when those requirements or the Python change; `--no-isolation` then builds with them and fetches
 *   nothing.
 * - The project is built from a copy (setuptools writes `build/` and `*.egg-info` into the folder it builds).
 * - `SOURCE_DATE_EPOCH` is the last commit's time, so the wheel's entries carry it rather than the build's time.
 * - sdk/python/ must be generated from this tree's schema: a `pulumi-plugin.json` whose version is not package.json's,
 *   or whose `server` is not dist/schema.json's `pluginDownloadURL`, fails the release with "run scripts/sdk/python.sh"
 *   (tests/sdk/python-sdk.test.ts catches any other difference).
 *
 * The Python is `$HELPDESK_PYTHON` (default `python3`), as for scripts/setup.sh.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { PYTHON_PACKAGE } from "../../dist/kernel/names.js"; // from the build, as executable.ts says
import { pythonArtefactNamesOf } from "../publish/prerelease.ts";
import { pinnedVenvPython, run } from "./cache.ts";
import { ROOT } from "./executable.ts";

/** The pinned requirements of the build virtualenv. */
const REQUIREMENTS = join(ROOT, "scripts", "release", "python-requirements.txt");

/**
 * The file names `python -m build` gives the SDK's artefacts (PEP 427 wheel, PEP 625 sdist names), with the version
 * in its PEP 440 form (scripts/publish/prerelease.ts: `0.4.0-rc.1` is `0.4.0rc1`, as the generated pyproject.toml
 * says).
 *
 * @param version package.json's, e.g. `"0.1.0"`
 * @returns `{ wheel: "pulumi_helpdesk-0.1.0-py3-none-any.whl", sdist: "pulumi_helpdesk-0.1.0.tar.gz" }`
 */
export function pythonArtefactNames(version: string): { wheel: string; sdist: string } {
  // The distribution's name is the package's (the generated pyproject.toml's `project.name`).
  return pythonArtefactNamesOf(PYTHON_PACKAGE, version);
}

/**
 * Makes (or reuses) the build virtualenv and returns its Python.
 *
 * @returns the path of the virtualenv's `bin/python`
 * @throws Error when there is no Python >= 3.11 or pip cannot install the pinned requirements
 */
export function buildVenvPython(): string {
  return pinnedVenvPython("python-build-venv", REQUIREMENTS, "the release builds the Python SDK");
}

/**
 * Checks that sdk/python/ was generated from this tree's schema.
 *
 * @param version package.json's version
 * @throws Error naming the mismatch and the cure
 */
function checkGenerated(version: string): void {
  const sdk = join(ROOT, "sdk", "python");
  const cure = "run `npm run build`, then scripts/sdk/python.sh to regenerate it";
  if (!existsSync(join(sdk, "pyproject.toml"))) throw new Error(`there is no generated Python SDK in ${sdk}: ${cure}`);
  const plugin = JSON.parse(readFileSync(join(sdk, PYTHON_PACKAGE, "pulumi-plugin.json"), "utf8")) as {
    version?: string;
    server?: string;
  };
  const schema = JSON.parse(readFileSync(join(ROOT, "dist", "schema.json"), "utf8")) as {
    version?: string;
    pluginDownloadURL?: string;
  };
  if (plugin.version !== version || schema.version !== version) {
    throw new Error(
      `sdk/python is version ${plugin.version} and dist/schema.json ${schema.version}, package.json ${version}: ${cure}`,
    );
  }
  if (!plugin.server || plugin.server !== schema.pluginDownloadURL) {
    throw new Error(
      `sdk/python's pulumi-plugin.json has server ${plugin.server}, the schema pluginDownloadURL ${schema.pluginDownloadURL}: ${cure}`,
    );
  }
}

/**
 * Builds the wheel and the sdist of the Python SDK into `out`.
 *
 * @param out the release folder
 * @param version package.json's version (the generated project's)
 * @param sourceDateEpoch seconds since 1970 for the wheel's time stamps (the last commit's)
 * @returns the two file names written, wheel first
 * @throws Error when sdk/python/ is not this tree's, or a build step fails
 */
export function buildPythonPackages(out: string, version: string, sourceDateEpoch: string): string[] {
  checkGenerated(version);
  const python = buildVenvPython();
  const staging = mkdtempSync(join(out, ".staging-python-"));
  try {
    const project = join(staging, "project");
    cpSync(join(ROOT, "sdk", "python"), project, { recursive: true });
    const built = join(staging, "built");
    run(python, ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", built, project], {
      env: { ...process.env, SOURCE_DATE_EPOCH: sourceDateEpoch, PIP_NO_INDEX: "1", PYTHONDONTWRITEBYTECODE: "1" },
    });
    const names = pythonArtefactNames(version);
    const found = readdirSync(built).sort();
    if (found.join(" ") !== [names.sdist, names.wheel].sort().join(" ")) {
      throw new Error(`python -m build wrote ${found.join(", ")}; expected ${names.wheel} and ${names.sdist}`);
    }
    for (const name of [names.wheel, names.sdist]) renameSync(join(built, name), join(out, name));
    return [names.wheel, names.sdist];
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
