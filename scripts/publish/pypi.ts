/**
 * The PyPI target of `npm run publish`: the release's wheel and sdist of each Python distribution of
 * scripts/publish/packages.ts `releasePythonDistributions` (the Python SDK `pulumi_helpdesk`, scripts/release/python.ts;
 * the receiver kit `pulumi_helpdesk_receiver`, scripts/release/receiver.ts), checked with `twine check --strict`, then uploaded with `twine upload`, configured by twine's own settings:
 * `TWINE_REPOSITORY_URL` (default: PyPI), `TWINE_USERNAME`, `TWINE_PASSWORD` (on PyPI, `__token__` and an API token;
 * in the release workflow, twine's trusted publishing needs neither). twine runs from a pinned virtualenv
 * (`$HELPDESK_CACHE/python-publish-venv`, scripts/publish/twine-requirements.txt), as `build` does for the release.
 *
 * Asked first: the index's simple page of each project (PEP 503), at `PIP_INDEX_URL` when set (pip's setting, the
 * index the files are installed from), else at `<TWINE_REPOSITORY_URL's origin>/simple/` (pypiserver, devpi).
 * A file listed with the same sha256 is present and skipped; anything else is uploaded, and an index that holds the
 * file name refuses it (PyPI never replaces a file), which stops the run. With neither setting (PyPI itself) the
 * index is not asked, and twine's `--skip-existing` skips what PyPI already has.
 *
 * The files' version is the PEP 440 form (scripts/publish/prerelease.ts: `0.4.0-rc.1` is `0.4.0rc1`, a pre-release
 * pip installs only when asked for). A refusal is one line: the index's reason ({@link twineRefusal}). A URL's
 * credentials (`https://user:password@host/`) are used, never printed.
 */
import { join } from "node:path";
import { pinnedVenvPython } from "../release/cache.ts";
import {
  ANSI_COLOUR,
  ask,
  digestOf,
  fileNeed,
  oneLine,
  type PublishContext,
  PublishError,
  redactUrl,
  runTool,
  type Target,
  type ToolRun,
  tail,
  toolNeed,
} from "./common.ts";
import { pythonProjectName, releasePythonDistributions } from "./packages.ts";
import { pythonArtefactNamesOf } from "./prerelease.ts";

const NAME = "pypi";

/** The pinned requirements of the publishing virtualenv. */
const REQUIREMENTS = join(import.meta.dirname, "twine-requirements.txt");

/** The release's Python files per distribution, in the order they publish: its project name and wheel and sdist. */
function distributions(context: PublishContext): Array<{ project: string; files: string[] }> {
  return releasePythonDistributions().map(({ name }) => {
    const names = pythonArtefactNamesOf(name, context.version);
    return { project: pythonProjectName(name), files: [names.wheel, names.sdist] };
  });
}

/** The release's Python files, per distribution its wheel then its sdist. */
function files(context: PublishContext): string[] {
  return distributions(context).flatMap((distribution) => distribution.files);
}

/** Where twine uploads, for messages (a URL, its credentials redacted). */
function repository(): string {
  return process.env.TWINE_REPOSITORY_URL
    ? redactUrl(process.env.TWINE_REPOSITORY_URL)
    : "twine's default repository (PyPI)";
}

/**
 * The index's reason for refusing an upload, in one line, from twine's `--verbose` output (which holds the
 * response's HTML page, coloured): the status twine reports and the page's message, e.g. `400 Bad Request: Package
 * 'pulumi_helpdesk-0.3.0-py3-none-any.whl' already exists! ...` (pypiserver's `<pre>`; PyPI puts its reason in the
 * status line). Any other failure: twine's first `ERROR` and the lines that continue it.
 *
 * @param ran twine's run
 */
export function twineRefusal(ran: ToolRun): string {
  const text = `${ran.stdout}\n${ran.stderr}`.replace(ANSI_COLOUR, "");
  const status = /HTTPError: (\d{3}[^\n]*?) from \S+/.exec(text)?.[1];
  const page = /<pre>([\s\S]*?)<\/pre>/i.exec(text)?.[1] ?? /<h1>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
  if (status) return oneLine(page && !page.includes(status) ? `${status}: ${page}` : status);
  const error = /\bERROR\s+(.*(?:\n[ \t]+\S.*)*)/.exec(text)?.[1];
  return oneLine(error ?? tail(ran, 1));
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
  needs(context) {
    const python = process.env.HELPDESK_PYTHON || "python3";
    return [
      toolNeed(
        python,
        "Python >= 3.11, which makes the twine virtualenv",
        "install it, or set HELPDESK_PYTHON to one (actions/setup-python)",
      ),
      ...files(context).map((name) => fileNeed(join(context.release, name), "npm run release builds it")),
    ];
  },
  async survey(context) {
    const paths = files(context).map((name) => join(context.release, name));
    const checked = await twine(["check", "--strict", ...paths]);
    if (checked.code !== 0)
      throw new PublishError(
        NAME,
        `twine check found what PyPI would refuse in the release's Python files: ${twineRefusal(checked)}`,
      );
    const index = simpleIndex();
    const items = [];
    for (const distribution of distributions(context)) {
      let page = "";
      if (index) {
        // PEP 503: the project's page at its normalized name.
        const url = `${index}${distribution.project}/`;
        const asked = await ask(url, NAME);
        if (asked.status !== 200 && asked.status !== 404)
          throw new PublishError(NAME, `${redactUrl(url)} responded with ${asked.status}`);
        page = asked.status === 200 ? asked.text : "";
      }
      for (const name of distribution.files) {
        const listed = new RegExp(`href="[^"]*/${name.replace(/[.+]/g, "\\$&")}#sha256=([0-9a-f]{64})"`).exec(
          page,
        )?.[1];
        items.push({
          what: name,
          state:
            listed === digestOf(join(context.release, name), "sha256") ? ("present" as const) : ("missing" as const),
        });
      }
    }
    return { where: repository(), items };
  },
  async send(context, missing) {
    // --verbose: twine then prints the index's response, which says why it refused (twineRefusal reads it).
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
        `${repository()} refused ${missing.join(" and ")}: ${twineRefusal(ran)} (an index never replaces a file, and needs TWINE_USERNAME and TWINE_PASSWORD or trusted publishing)`,
      );
    }
  },
};
