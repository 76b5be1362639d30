/**
 * The Go target of `npm run publish`: the generated Go SDK, the module `github.com/<owner>/<repo>/sdk/go`
 * (kernel/names.ts `goModulePath`) in the repository's folder sdk/go, at the version `v<version>`. Go finds a module
 * of a subfolder at the tag named with the folder as prefix: `sdk/go/v<version>` (`go help modules`, "Mapping
 * versions to commits"). Its files are those of the commit checked out (HEAD): sdk/go must be committed.
 *
 * - With `--go-remote <git remote name or URL>`: the tag `sdk/go/v<version>` is made at HEAD and pushed to that
 *   remote (the release workflow names its repository), which is all a public module needs: `go get` asks the
 *   module proxy, which reads the tag. A tag already there at the same commit is present; at another commit the
 *   push is refused. There is no default remote: in a clone, `origin` is wherever it was cloned from.
 * - With `--go-proxy <folder>`: the module is written into the folder in the GOPROXY protocol's layout
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
import { GO_SDK_DIR, goModulePath } from "../../kernel/names.ts";
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
import { goVersion } from "./prerelease.ts";

const NAME = "go";

/** The module's tag, Go's convention for a module in a subfolder: `sdk/go/v0.4.0-rc.1`. */
export function goSdkTag(version: string): string {
  return `${GO_SDK_DIR}/${goVersion(version)}`;
}

/** Runs git in the repository; throws a PublishError with its output when it fails. */
async function git(context: PublishContext, args: string[]): Promise<string> {
  const ran = await runTool("git", ["-C", context.root, ...args]);
  if (ran.code !== 0)
    throw new PublishError(NAME, `git ${args.join(" ")} failed: ${oneLine(ran.stderr) || oneLine(tail(ran))}`);
  return ran.stdout.trim();
}

/** Builds scripts/publish/goproxy (Go's build cache makes a rebuild quick) and runs it on the folder. */
async function goproxy(context: PublishContext, folder: string, check: boolean) {
  const bin = mkdtempSync(join(tmpdir(), "helpdesk-goproxy-"));
  let ran: Awaited<ReturnType<typeof runTool>>;
  try {
    const built = await runTool("go", ["build", "-o", join(bin, "goproxy"), "."], {
      cwd: join(import.meta.dirname, "goproxy"),
      env: { ...process.env, GOWORK: "off", GOTOOLCHAIN: "local", GOFLAGS: "-mod=readonly" },
    });
    if (built.code !== 0) throw new PublishError(NAME, `building scripts/publish/goproxy failed:\n${tail(built)}`);
    ran = await runTool(join(bin, "goproxy"), [
      ...(check ? ["-check"] : []),
      folder,
      goModulePath(),
      goVersion(context.version),
      context.root,
      "HEAD",
      GO_SDK_DIR,
    ]);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
  const what = `${goModulePath()}@${goVersion(context.version)}`;
  if (ran.code === 3) throw new PublishError(NAME, `${folder} refused ${what}: ${oneLine(ran.stderr)}`);
  if (ran.code !== 0) throw new PublishError(NAME, `writing ${what} into ${folder} failed:\n${tail(ran)}`);
  return ran.stdout.trim();
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
      toolNeed("git", "Git", "install it: the module is the commit's sdk/go"),
      ...(context.goProxy ? [toolNeed("go", "Go", "install it: it builds scripts/publish/goproxy")] : []),
      {
        what: "a place for the Go module",
        remedy:
          "give --go-remote <git remote name or URL> (the tag sdk/go/v<version> is pushed there) or --go-proxy <folder> (a GOPROXY-protocol folder)",
        present: Boolean(context.goProxy || context.goRemote),
      },
    ];
  },
  async survey(context) {
    const changed = await git(context, ["status", "--porcelain", "--", GO_SDK_DIR]);
    if (changed)
      throw new PublishError(
        NAME,
        `${GO_SDK_DIR} has changes not committed (the module is the commit's files):\n${changed}`,
      );
    const what = `${goModulePath()}@${goVersion(context.version)}`;
    if (context.goProxy) {
      const state = await goproxy(context, context.goProxy, true);
      return { where: context.goProxy, items: [{ what, state: state === "present" ? "present" : "missing" }] };
    }
    const tag = goSdkTag(context.version);
    const remote = required(context.goRemote, "--go-remote"); // its needs refuse a run with neither --go-proxy nor --go-remote
    const shown = await remoteShown(context, remote);
    const listed = await git(context, ["ls-remote", "--tags", remote, `refs/tags/${tag}`]);
    const head = await git(context, ["rev-parse", "HEAD"]);
    const at = listed.split(/\s+/)[0];
    if (at && at !== head)
      throw new PublishError(
        NAME,
        `${shown} has the tag ${tag} at ${at}, not at HEAD ${head}: a published Go version never moves; release a new version`,
      );
    return { where: `the tag ${tag} on ${shown}`, items: [{ what, state: at ? "present" : "missing" }] };
  },
  async send(context) {
    if (context.goProxy) {
      await goproxy(context, context.goProxy, false);
      return;
    }
    const tag = goSdkTag(context.version);
    await git(context, ["tag", "--force", tag, "HEAD"]);
    await git(context, ["push", required(context.goRemote, "--go-remote"), `refs/tags/${tag}`]);
  },
};
