/**
 * The PyPI target of `npm run publish`: the release's wheel and sdist of the Python SDK (scripts/release/python.ts),
 * checked with `twine check --strict`, then uploaded with `twine upload`, configured by twine's own settings:
 * `TWINE_REPOSITORY_URL` (default: PyPI), `TWINE_USERNAME`, `TWINE_PASSWORD` (on PyPI, `__token__` and an API token;
 * in the release workflow, twine's trusted publishing needs neither). twine runs from a pinned virtualenv
 * (`$HELPDESK_CACHE/python-publish-venv`, scripts/publish/twine-requirements.txt), as `build` does for the release.
 *
 * Asked first: the index's simple page of the project (PEP 503), at `PIP_INDEX_URL` when set (pip's setting, the
 * index the files are installed from), else at `<TWINE_REPOSITORY_URL's origin>/simple/` (pypiserver, devpi).
 * A file listed with the same sha256 is present and skipped; anything else is uploaded, and an index that holds the
 * file name refuses it (PyPI never replaces a file), which stops the run. With neither setting (PyPI itself) the
 * index is not asked, and twine's `--skip-existing` skips what PyPI already has.
 */
import { join } from "node:path";
import { pinnedVenvPython, pythonArtefactNames } from "../release/python.ts";
import { ask, digestOf, PublishError, runTool, tail, type PublishContext, type Target } from "./common.ts";

const NAME = "pypi";

/** The pinned requirements of the publishing virtualenv. */
const REQUIREMENTS = join(import.meta.dirname, "twine-requirements.txt");

/** The release's wheel and sdist, wheel first. */
function files(context: PublishContext): string[] {
  const names = pythonArtefactNames(context.version);
  return [names.wheel, names.sdist];
}

/** Where twine uploads, for messages (a URL, never a credential). */
function repository(): string {
  return process.env.TWINE_REPOSITORY_URL || "twine's default repository (PyPI)";
}

/** The simple index to ask, or undefined when there is none to ask (see the module doc). */
function simpleIndex(): string | undefined {
  if (process.env.PIP_INDEX_URL) return process.env.PIP_INDEX_URL.replace(/\/?$/, "/");
  if (process.env.TWINE_REPOSITORY_URL) return `${new URL(process.env.TWINE_REPOSITORY_URL).origin}/simple/`;
  return undefined;
}

/** Runs twine from the publishing virtualenv. */
async function twine(args: string[]) {
  const python = pinnedVenvPython(
    "python-publish-venv",
    REQUIREMENTS,
    "npm run publish uploads the Python SDK with twine",
  );
  return runTool(python, ["-m", "twine", ...args]);
}

export const pypiTarget: Target = {
  name: NAME,
  async survey(context) {
    const paths = files(context).map((name) => join(context.release, name));
    const checked = await twine(["check", "--strict", ...paths]);
    if (checked.code !== 0)
      throw new PublishError(
        NAME,
        `twine check found what PyPI would refuse in the release's Python SDK:\n${tail(checked)}`,
      );
    const index = simpleIndex();
    let page = "";
    if (index) {
      // PEP 503: the project's page at its normalized name.
      const project = pythonArtefactNames(context.version)
        .sdist.replace(/-[^-]+\.tar\.gz$/, "")
        .replace(/[-_.]+/g, "-")
        .toLowerCase();
      const asked = await ask(`${index}${project}/`, NAME);
      if (asked.status !== 200 && asked.status !== 404)
        throw new PublishError(NAME, `${index}${project}/ responded with ${asked.status}`);
      page = asked.status === 200 ? asked.text : "";
    }
    const items = files(context).map((name) => {
      const listed = new RegExp(`href="[^"]*/${name.replace(/[.+]/g, "\\$&")}#sha256=([0-9a-f]{64})"`).exec(page)?.[1];
      return {
        what: name,
        state: listed === digestOf(join(context.release, name), "sha256") ? ("present" as const) : ("missing" as const),
      };
    });
    return { where: repository(), items };
  },
  async send(context, missing) {
    // --verbose: twine then prints the index's response, which says why it refused (it hides the password).
    const args = [
      "upload",
      "--non-interactive",
      "--disable-progress-bar",
      "--verbose",
      ...(simpleIndex() ? [] : ["--skip-existing"]),
      ...missing.map((name) => join(context.release, name)),
    ];
    const ran = await twine(args);
    if (ran.code !== 0) {
      throw new PublishError(
        NAME,
        `${repository()} refused ${missing.join(" and ")} (twine upload exited ${ran.code}; an index never replaces a file, and needs TWINE_USERNAME and TWINE_PASSWORD or trusted publishing):\n${tail(ran, 40)}`,
      );
    }
  },
};
