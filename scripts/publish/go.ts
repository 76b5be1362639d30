/**
 * The Go target of `npm run publish`: the Go modules of scripts/publish/packages.ts `releaseGoModules`, each a folder
 * of the repository with its own go.mod, at the version `v<version>`: the generated Go SDK, the module
 * `github.com/<owner>/<repo>/sdk/go` (kernel/names.ts `goModulePath`) in sdk/go, and the Go receiver kit, the module
 * `github.com/<owner>/<repo>/receiver/go` (kernel/names.ts `receiverGoModulePath`) in receiver/go. Go finds a module
 * of a subfolder at the tag named with the folder as prefix: `sdk/go/v<version>`, `receiver/go/v<version>` (`go help
 * modules`, "Mapping versions to commits"). Their files are those of the commit checked out (HEAD): both folders
 * must be committed.
 *
 * - With `--go-remote <git remote name or URL>`: each module's tag is made at HEAD and pushed to that remote (the
 *   release workflow names its repository), which is all a public module needs: `go get` asks the module proxy,
 *   which reads the tag. A tag already there at the same commit is present; at another commit the run is refused.
 *   There is no default remote: in a clone, `origin` is wherever it was cloned from.
 * - With `--go-proxy <folder>`: each module is written into the folder in the GOPROXY protocol's layout
 *   (`<module>/@v/list`, `.info`, `.mod`, `.zip`), which a private proxy serves as it is, or `GOPROXY=file://<folder>`
 *   reads: scripts/publish/goproxy (a Go program, golang.org/x/mod's zip writer and hash), built with `go build`. A
 *   version the folder holds with the same files is present; with other files it is refused.
 * - With neither, choosing the target is refused before anything is sent (its needs).
 *
 * The version is scripts/publish/prerelease.ts `goVersion`: a prerelease keeps its semver form (`v0.4.0-rc.1`).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { required } from "../../kernel/required.ts";
import {
  oneLine,
  type PublishContext,
  PublishError,
  redactUrl,
  runTool,
  type Target,
  tail,
  toolNeed,
} from "./common.ts";
import { goModuleTag, type ReleaseGoModule, releaseGoModules } from "./packages.ts";
import { goVersion } from "./prerelease.ts";

const NAME = "go";

/** The tags the modules are pushed as, for messages: `sdk/go/v<version> and receiver/go/v<version>`. */
function tagsShown(): string {
  return releaseGoModules()
    .map((module) => `${module.dir}/v<version>`)
    .join(" and ");
}

/** What the target sends of a module, as an item names it: `<module path>@v<version>`. */
function itemOf(module: ReleaseGoModule, context: PublishContext): string {
  return `${module.name}@${goVersion(context.version)}`;
}

/** Runs git in the repository; throws a PublishError with its output when it fails. */
async function git(context: PublishContext, args: string[]): Promise<string> {
  const ran = await runTool("git", ["-C", context.root, ...args]);
  if (ran.code !== 0)
    throw new PublishError(NAME, `git ${args.join(" ")} failed: ${oneLine(ran.stderr) || oneLine(tail(ran))}`);
  return ran.stdout.trim();
}

/**
 * Builds scripts/publish/goproxy (Go's build cache makes a rebuild quick) and runs it on the folder for each module.
 *
 * @returns per module, in order, what goproxy printed: `present`, `missing` (with `check`) or `published`
 * @throws PublishError when the build fails, the folder holds a module's version with other files, or goproxy fails
 */
async function goproxy(context: PublishContext, folder: string, check: boolean, modules: readonly ReleaseGoModule[]) {
  const bin = mkdtempSync(join(tmpdir(), "helpdesk-goproxy-"));
  const states: string[] = [];
  try {
    const built = await runTool("go", ["build", "-o", join(bin, "goproxy"), "."], {
      cwd: join(import.meta.dirname, "goproxy"),
      env: { ...process.env, GOWORK: "off", GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" },
    });
    if (built.code !== 0) throw new PublishError(NAME, `building scripts/publish/goproxy failed:\n${tail(built)}`);
    for (const module of modules) {
      const ran = await runTool(join(bin, "goproxy"), [
        ...(check ? ["-check"] : []),
        folder,
        module.name,
        goVersion(context.version),
        context.root,
        "HEAD",
        module.dir,
      ]);
      const what = itemOf(module, context);
      if (ran.code === 3) throw new PublishError(NAME, `${folder} refused ${what}: ${oneLine(ran.stderr)}`);
      if (ran.code !== 0) throw new PublishError(NAME, `writing ${what} into ${folder} failed:\n${tail(ran)}`);
      states.push(ran.stdout.trim());
    }
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
  return states;
}

/** What `--go-remote` names, as it may be printed: the remote's name and its URL, credentials redacted. */
async function remoteShown(context: PublishContext, remote: string): Promise<string> {
  const url = await runTool("git", ["-C", context.root, "remote", "get-url", remote]);
  return url.code === 0 ? `${remote} (${redactUrl(url.stdout.trim())})` : redactUrl(remote);
}

export const goTarget: Target = {
  name: NAME,
  needs(context) {
    return [
      toolNeed("git", "Git", "install it: the modules are the commit's folders"),
      ...(context.goProxy ? [toolNeed("go", "Go", "install it: it builds scripts/publish/goproxy")] : []),
      {
        what: "a place for the Go modules",
        remedy: `give --go-remote <git remote name or URL> (the tags ${tagsShown()} are pushed there) or --go-proxy <folder> (a GOPROXY-protocol folder)`,
        present: Boolean(context.goProxy || context.goRemote),
      },
    ];
  },
  async survey(context) {
    const modules = releaseGoModules();
    const changed = await git(context, ["status", "--porcelain", "--", ...modules.map((module) => module.dir)]);
    if (changed)
      throw new PublishError(
        NAME,
        `${modules.map((module) => module.dir).join(" or ")} has changes not committed (a module is the commit's files):\n${changed}`,
      );
    if (context.goProxy) {
      const states = await goproxy(context, context.goProxy, true, modules);
      return {
        where: context.goProxy,
        items: modules.map((module, at) => ({
          what: itemOf(module, context),
          state: states[at] === "present" ? ("present" as const) : ("missing" as const),
        })),
      };
    }
    const remote = required(context.goRemote, "--go-remote"); // its needs refuse a run with neither --go-proxy nor --go-remote
    const shown = await remoteShown(context, remote);
    const head = await git(context, ["rev-parse", "HEAD"]);
    const items = [];
    for (const module of modules) {
      const tag = goModuleTag(module.dir, context.version);
      const listed = await git(context, ["ls-remote", "--tags", remote, `refs/tags/${tag}`]);
      const at = listed.split(/\s+/)[0];
      if (at && at !== head)
        throw new PublishError(
          NAME,
          `${shown} has the tag ${tag} at ${at}, not at HEAD ${head}: a published Go version never moves; release a new version`,
        );
      items.push({ what: itemOf(module, context), state: at ? ("present" as const) : ("missing" as const) });
    }
    const tags = modules.map((module) => goModuleTag(module.dir, context.version)).join(" and ");
    return { where: `the tags ${tags} on ${shown}`, items };
  },
  async send(context, missing) {
    const modules = releaseGoModules().filter((module) => missing.includes(itemOf(module, context)));
    if (context.goProxy) {
      await goproxy(context, context.goProxy, false, modules);
      return;
    }
    const remote = required(context.goRemote, "--go-remote");
    const tags = modules.map((module) => goModuleTag(module.dir, context.version));
    for (const tag of tags) await git(context, ["tag", "--force", tag, "HEAD"]);
    // One push of every tag: either the remote takes them all, or it refuses the run.
    await git(context, ["push", "--atomic", remote, ...tags.map((tag) => `refs/tags/${tag}`)]);
  },
};
