/**
 * The npm target of `npm run publish`: the release's npm tarballs, one per package of scripts/publish/packages.ts
 * `releaseNpmPackages` (the package `pulumi-helpdesk`, `npm pack` of the repository; the TypeScript SDK
 * `@pulumi-helpdesk/helpdesk`, scripts/release/nodejs-sdk.ts; the receiver kit `@pulumi-helpdesk/receiver`,
 * scripts/release/receiver.ts), in that order, published with `npm publish <tarball>` to the registry npm's own settings name (`npm_config_registry`, else npm's config files,
 * else npm's default).
 *
 * - A token in `NODE_AUTH_TOKEN` (the variable actions/setup-node's `.npmrc` reads) is given to npm by a project
 *   `.npmrc` of a temporary folder, `//<registry>/:_authToken=${NODE_AUTH_TOKEN}`, which npm expands itself: the
 *   token is never on a command line. Without it, npm's own login (`npm login`, the user's `.npmrc`) applies.
 * - Asked first: `npm view <name>@<version> dist.integrity`. The same integrity as the tarball's (sha512) is present
 *   and skipped; anything else is sent, and a registry holding the version refuses it (npm's registries never
 *   replace a version), which stops the run.
 * - Scoped packages are published `--access public` (npm's default for a scoped package is restricted). Provenance
 *   (`npm_config_provenance=true`) is set by the release workflow, where npm can prove the build's origin.
 * - Under the dist-tag scripts/publish/prerelease.ts `npmDistTag` gives: `next` for a prerelease, which moves no
 *   `latest`; `latest` for a release.
 * - A refusal is one line: npm's error code and the registry's reason ({@link npmRefusal}).
 * - `--ignore-scripts`: a tarball has no scripts to run, and the repository's own `publish` script (this command)
 *   must never run from inside it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { required } from "../../kernel/required.ts";
import {
  digestOf,
  oneLine,
  type PublishContext,
  PublishError,
  runTool,
  type Target,
  type ToolRun,
  tail,
  toolNeed,
} from "./common.ts";
import { releaseNpmPackages } from "./packages.ts";
import { npmDistTag } from "./prerelease.ts";

const NAME = "npm";

/** A tarball of the release and the package it holds. */
interface Tarball {
  file: string;
  name: string;
  version: string;
}

/**
 * The release's npm tarballs (`*.tgz`) and the package names and versions their package.json say, in the order of
 * scripts/publish/packages.ts `releaseNpmPackages`.
 *
 * @throws PublishError when the tarballs' packages are not exactly those (one tarball each), or one is not of the
 *   release's version
 */
function tarballs(context: PublishContext): Tarball[] {
  const found = readdirSync(context.release)
    .filter((name) => name.endsWith(".tgz"))
    .map((name) => {
      const file = join(context.release, name);
      const pkg = JSON.parse(execFileSync("tar", ["-xOzf", file, "package/package.json"], { encoding: "utf8" })) as {
        name: string;
        version: string;
      };
      return { file, name: pkg.name, version: pkg.version };
    });
  const expected = releaseNpmPackages();
  const names = found.map((tarball) => tarball.name).sort();
  if (
    names.join(" ") !==
    expected
      .map((pkg) => pkg.name)
      .sort()
      .join(" ")
  ) {
    const wanted = expected.map((pkg) => `${pkg.what} ${pkg.name}`).join(", ");
    throw new PublishError(
      NAME,
      `${context.release} holds ${found.length} npm tarballs (${found.map((t) => `${t.file}: ${t.name}`).join(", ") || "none"}); the release has one of each of ${wanted}: run npm run release`,
    );
  }
  for (const tarball of found) {
    if (tarball.version !== context.version)
      throw new PublishError(
        NAME,
        `${tarball.file} is ${tarball.name}@${tarball.version}, not the release's ${context.version}: run npm run release`,
      );
  }
  return expected.map(({ name }) =>
    required(
      found.find((tarball) => tarball.name === name),
      `the tarball of ${name}`,
    ),
  );
}

/**
 * npm's environment: this process's, with npm's errors shown (`npm run --silent publish` passes
 * `npm_config_loglevel=silent` down, which would hide the registry's reason for a refusal).
 */
function npmEnv(): NodeJS.ProcessEnv {
  return { ...process.env, npm_config_loglevel: "warn" };
}

/** A temporary folder whose `.npmrc` gives npm `NODE_AUTH_TOKEN` for the registry (when set), removed by `done`. */
async function npmFolder(): Promise<{ cwd: string; registry: string; done(): void }> {
  const cwd = mkdtempSync(join(tmpdir(), "helpdesk-publish-npm-"));
  const got = await runTool("npm", ["config", "get", "registry"], { cwd, env: npmEnv() });
  if (got.code !== 0) throw new PublishError(NAME, `npm config get registry failed:\n${tail(got)}`);
  const registry = got.stdout.trim();
  if (process.env.NODE_AUTH_TOKEN) {
    // npm's "nerf dart": the registry URL without its protocol, ending in a slash.
    const nerfed = registry.replace(/^https?:/, "").replace(/\/?$/, "/");
    writeFileSync(join(cwd, ".npmrc"), `${nerfed}:_authToken=\${NODE_AUTH_TOKEN}\n`, { mode: 0o600 });
  }
  return { cwd, registry, done: () => rmSync(cwd, { recursive: true, force: true }) };
}

/**
 * npm's reason for a failure, in one line: its error code and the registry's message, e.g. `E403 403 Forbidden - PUT
 * http://127.0.0.1:4873/pulumi-helpdesk - You cannot publish over the previously published versions: 0.3.0.` (npm
 * prints it among a dozen lines of advice and a log file's path).
 *
 * @param ran npm's run
 */
export function npmRefusal(ran: ToolRun): string {
  const lines = `${ran.stderr}\n${ran.stdout}`.split("\n").map((line) => /^npm (?:error|ERR!) (.*)$/.exec(line)?.[1]);
  const errors = lines.filter((line): line is string => line !== undefined && line.trim() !== "");
  const code = errors.map((line) => /^code (\S+)$/.exec(line)?.[1]).find(Boolean);
  // The registry's answer: `<status> <status> <reason> - <method> <url> - <message>`, else npm's first other line.
  const answer =
    errors.map((line) => /^\d{3} (\d{3} .*)$/.exec(line)?.[1]).find(Boolean) ??
    errors.find((line) => !/^(code|errno|syscall|A complete log|[a-z ]*log of this run)/i.test(line));
  const reason = [code, answer].filter(Boolean).join(" ");
  return oneLine(reason || tail(ran, 1));
}

export const npmTarget: Target = {
  name: NAME,
  needs() {
    return [
      toolNeed("npm", "Node.js's package manager", "install Node.js with its npm (actions/setup-node)"),
      toolNeed("tar", "the tarballs' package.json are read with it", "install it"),
    ];
  },
  async survey(context) {
    const found = tarballs(context);
    const folder = await npmFolder();
    try {
      // A token is tried before anything of any target is sent: a registry that refuses it stops the run here, not
      // halfway through. (With npm's trusted publishing there is no token yet: npm trades the job's OIDC identity
      // for one at `npm publish`.)
      if (process.env.NODE_AUTH_TOKEN) {
        const who = await runTool("npm", ["whoami"], { cwd: folder.cwd, env: npmEnv() });
        if (who.code !== 0)
          throw new PublishError(
            NAME,
            `${folder.registry} refused the token in NODE_AUTH_TOKEN (npm whoami: ${npmRefusal(who)}); nothing was sent`,
          );
      }
      const items = [];
      for (const tarball of found) {
        const what = `${tarball.name}@${tarball.version}`;
        const viewed = await runTool("npm", ["view", what, "dist.integrity", "--json"], {
          cwd: folder.cwd,
          env: npmEnv(),
        });
        const held = viewed.code === 0 ? viewed.stdout.trim() : "";
        if (viewed.code !== 0 && !/E404/.test(viewed.stdout + viewed.stderr)) {
          throw new PublishError(NAME, `npm view ${what} at ${folder.registry} failed: ${npmRefusal(viewed)}`);
        }
        // `npm view` prints nothing (exit 0) for a package that exists without this version.
        const integrity = held ? (JSON.parse(held) as string) : "";
        items.push({
          what,
          state:
            integrity === `sha512-${digestOf(tarball.file, "sha512", "base64")}`
              ? ("present" as const)
              : ("missing" as const),
        });
      }
      return { where: folder.registry, items };
    } finally {
      folder.done();
    }
  },
  async send(context, missing) {
    const folder = await npmFolder();
    try {
      for (const tarball of tarballs(context).filter((t) => missing.includes(`${t.name}@${t.version}`))) {
        const args = [
          "publish",
          tarball.file,
          "--ignore-scripts",
          "--tag",
          npmDistTag(tarball.version),
          ...(tarball.name.startsWith("@") ? ["--access", "public"] : []),
        ];
        const ran = await runTool("npm", args, { cwd: folder.cwd, env: npmEnv() });
        if (ran.code !== 0) {
          throw new PublishError(
            NAME,
            `${folder.registry} refused ${tarball.name}@${tarball.version}: ${npmRefusal(ran)} (a registry never replaces a published version, and needs a token: NODE_AUTH_TOKEN or npm login)`,
          );
        }
      }
    } finally {
      folder.done();
    }
  },
};
