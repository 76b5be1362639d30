/**
 * The GitHub target of `npm run publish`: the GitHub release `v<version>` (kernel/names.ts `releaseTag`) holding the
 * plugin archives and `SHA256SUMS` (and, when the release workflow has signed it, `SHA256SUMS.sigstore.json`): the
 * files Pulumi downloads from the schema's `pluginDownloadURL` (`.../releases/download/v${VERSION}/`).
 *
 * - Without `--github-release-folder`: the GitHub CLI `gh`, authenticated by `GITHUB_TOKEN` (the workflow's), in
 *   the repository of the git remote `origin` (or `GH_REPO`). `gh release view` says which assets are there (by
 *   name: GitHub keeps an asset until it is deleted); a missing release is created at its tag (`--verify-tag`: the
 *   tag must exist), a prerelease version marked `--prerelease --latest=false` (scripts/publish/prerelease.ts);
 *   missing assets are uploaded (`gh release upload` refuses a name already there). A `--dry-run` without `gh` asks
 *   nothing and lists every asset as would publish.
 * - With `--github-release-folder <folder>`: the assets are written into `<folder>/v<version>/`, the release's
 *   download folder, which a static HTTP server serves as a plugin mirror (Pulumi's
 *   `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES=.*=<server>/v${VERSION}`). A file there with the same bytes is present;
 *   with other bytes it is refused, as GitHub refuses an asset name that exists.
 */

import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { CLI_EXECUTABLE, PLUGIN_EXECUTABLE, releaseTag, SUMS_SIGNATURE } from "../../kernel/names.ts";
import { required } from "../../kernel/required.ts";
import {
  digestOf,
  oneLine,
  onPath,
  type PublishContext,
  PublishError,
  runTool,
  type Target,
  tail,
  toolNeed,
} from "./common.ts";
import { githubReleaseFlags } from "./prerelease.ts";

const NAME = "github";

/**
 * The release's assets: the plugin archives, `SHA256SUMS`, and its signature bundle when there.
 *
 * @throws PublishError when the release folder has no plugin archive of this version or no SHA256SUMS
 */
export function githubAssets(context: PublishContext): string[] {
  const names = readdirSync(context.release);
  const archives = names
    .filter((name) => name.startsWith(`${PLUGIN_EXECUTABLE}-v${context.version}-`) && name.endsWith(".tar.gz"))
    .sort();
  if (archives.length === 0)
    throw new PublishError(
      NAME,
      `${context.release} holds no plugin archive of ${context.version}: run npm run release`,
    );
  if (!names.includes("SHA256SUMS"))
    throw new PublishError(NAME, `${context.release} has no SHA256SUMS: run npm run release`);
  return [...archives, "SHA256SUMS", ...(names.includes(SUMS_SIGNATURE) ? [SUMS_SIGNATURE] : [])];
}

/** The release's download folder under `--github-release-folder`. */
function folderOf(context: PublishContext): string {
  return join(required(context.githubReleaseFolder, "--github-release-folder"), releaseTag(context.version));
}

/** Runs `gh`; throws a PublishError with its output when it fails. */
async function gh(args: string[], what: string): Promise<string> {
  const ran = await runTool("gh", args, { env: { ...process.env, GH_PROMPT_DISABLED: "1" } });
  if (ran.code !== 0)
    throw new PublishError(
      NAME,
      `${what} (gh ${args[0]} ${args[1]} exited ${ran.code}; gh needs GITHUB_TOKEN with contents: write): ${oneLine(ran.stderr) || oneLine(tail(ran))}`,
    );
  return ran.stdout;
}

export const githubTarget: Target = {
  name: NAME,
  needs(context) {
    if (context.githubReleaseFolder) return [];
    return [
      {
        ...toolNeed("gh", "the GitHub CLI", "install it (cli.github.com), or give --github-release-folder <folder>"),
        dryRunWithout: `did not ask the GitHub release ${releaseTag(context.version)} what it holds: every asset is listed as would publish`,
      },
    ];
  },
  async survey(context) {
    const assets = githubAssets(context);
    const tag = releaseTag(context.version);
    if (context.githubReleaseFolder) {
      const folder = folderOf(context);
      const items = assets.map((name) => {
        const there = join(folder, name);
        if (!existsSync(there)) return { what: name, state: "missing" as const };
        if (digestOf(there, "sha256") !== digestOf(join(context.release, name), "sha256")) {
          throw new PublishError(
            NAME,
            `${folder} already holds ${name} with other bytes: a released asset never changes; release a new version`,
          );
        }
        return { what: name, state: "present" as const };
      });
      return { where: folder, items };
    }
    if (!onPath("gh")) {
      // Only a dry run gets here without gh (its needs say so).
      return {
        where: `the GitHub release ${tag}`,
        items: assets.map((name) => ({ what: name, state: "missing" as const })),
      };
    }
    const viewed = await runTool("gh", ["release", "view", tag, "--json", "assets", "--jq", ".assets[].name"], {
      env: { ...process.env, GH_PROMPT_DISABLED: "1" },
    });
    if (viewed.code !== 0 && !/release not found/i.test(viewed.stderr))
      throw new PublishError(
        NAME,
        `gh release view ${tag} failed (gh needs GITHUB_TOKEN): ${oneLine(viewed.stderr) || oneLine(tail(viewed))}`,
      );
    const held = new Set(viewed.code === 0 ? viewed.stdout.split("\n").filter(Boolean) : []);
    return {
      where: `the GitHub release ${tag}`,
      items: assets.map((name) => ({
        what: name,
        state: held.has(name) ? ("present" as const) : ("missing" as const),
      })),
    };
  },
  async send(context, missing) {
    const tag = releaseTag(context.version);
    if (context.githubReleaseFolder) {
      const folder = folderOf(context);
      mkdirSync(folder, { recursive: true });
      // Each file appears whole: copied beside, then renamed into place.
      for (const name of missing) {
        copyFileSync(join(context.release, name), join(folder, `.${name}.partial`));
        renameSync(join(folder, `.${name}.partial`), join(folder, name));
      }
      return;
    }
    const exists =
      (
        await runTool("gh", ["release", "view", tag, "--json", "tagName"], {
          env: { ...process.env, GH_PROMPT_DISABLED: "1" },
        })
      ).code === 0;
    const files = missing.map((name) => join(context.release, name));
    if (!exists)
      await gh(
        [
          "release",
          "create",
          tag,
          "--verify-tag",
          ...githubReleaseFlags(context.version),
          "--title",
          tag,
          "--notes",
          `${CLI_EXECUTABLE} ${context.version}: see CHANGELOG.md`,
          ...files,
        ],
        `creating the GitHub release ${tag} was refused`,
      );
    else await gh(["release", "upload", tag, ...files], `uploading to the GitHub release ${tag} was refused`);
  },
};
