/**
 * `npm run publish` (scripts/publish.sh): publishes the release folder `npm run release` wrote to every registry, in
 * this order: the GitHub release (the plugin archives every SDK downloads), npm, PyPI, Maven, Go. Each target is
 * configured by its tool's own settings (scripts/publish/<target>.ts says which); none takes a credential on the
 * command line.
 *
 *   npm run publish -- [--only github,npm,pypi,maven,go] [--dry-run] [--release <dir>]
 *                      [--go-remote <git remote name or URL> | --go-proxy <folder>] [--github-release-folder <folder>]
 *
 * - First, every chosen target's needs (its tools on PATH, its files, its settings: `Target.needs`) are checked, and
 *   all that are missing are named, per target, in one message: exit 1, nothing asked or sent. `--dry-run` goes on
 *   without what only sending needs (`gh`: it says what it could not ask).
 * - Then every chosen target checks what its registry needs (`twine check`, the POM's elements, the tarballs'
 *   versions, a committed sdk/go) and asks its registry what it already holds. The release folder's files must match
 *   its SHA256SUMS.
 * - What a registry holds with the very same bytes is skipped, so a rerun after a failure publishes what is missing.
 * - `--dry-run` prints what would be sent where, and sends nothing.
 * - A refusal (authentication, a version already there with other bytes) stops the run with one line naming the
 *   target, where it sends and the registry's reason; exit status 1.
 * - A prerelease version (`0.4.0-rc.1`, scripts/publish/prerelease.ts) goes to npm's `next`, a GitHub prerelease, a
 *   PEP 440 pre-release and a Go pre-release version; no `latest` moves.
 * - Nothing printed holds a credential: every line and message goes through common.ts `redactText`.
 *
 * Prints one line per item on stdout: `<target>: <what> -> <where>: published | present, skipped | would publish`;
 * notes and errors (`error: ...`) on stderr. Exit status 0, or 1 on any error.
 *
 * Imports only Node.js and the project's sources (run with scripts/lib/source-imports.ts): no node_modules, no build.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { factsOf, PACKAGE_NAME } from "../../kernel/package-version.ts";
import { digestOf, type PublishContext, PublishError, redactText, type Target } from "./common.ts";
import { githubTarget } from "./github.ts";
import { goTarget } from "./go.ts";
import { mavenTarget } from "./maven.ts";
import { npmTarget } from "./npm.ts";
import { parseVersion } from "./prerelease.ts";
import { pypiTarget } from "./pypi.ts";

/** The repository's root. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Every target, in the order they publish. */
export const TARGETS: readonly Target[] = [githubTarget, npmTarget, pypiTarget, mavenTarget, goTarget];

/** The options of one run. */
export interface PublishOptions {
  /** the release folder (default: `release/`) */
  release: string;
  /** the targets' names (default: all of {@link TARGETS}) */
  only?: readonly string[];
  dryRun?: boolean;
  goProxy?: string;
  goRemote?: string;
  githubReleaseFolder?: string;
  /** where the item lines go (default: stdout); every line is redacted first */
  print?: (line: string) => void;
  /** where notes go (default: stderr); every line is redacted first */
  note?: (line: string) => void;
}

/**
 * The release's version: package.json's, which must be a release version (scripts/publish/prerelease.ts).
 *
 * @throws PublishError (target `release`) when package.json is not the project's or its version has no allowed form
 */
function releaseVersion(): string {
  const file = join(ROOT, "package.json");
  const facts = factsOf(readFileSync(file, "utf8"));
  if (!facts) throw new PublishError("release", `${file} is not ${PACKAGE_NAME}'s`);
  try {
    parseVersion(facts.version);
  } catch (error) {
    throw new PublishError("release", `package.json's version: ${(error as Error).message}`, { cause: error });
  }
  return facts.version;
}

/**
 * Checks every chosen target's needs (see {@link Target.needs}).
 *
 * @returns the notes of what a dry run goes on without
 * @throws PublishError (target `publish`) naming every missing need and its target, one a line
 */
function checkNeeds(chosen: readonly Target[], context: PublishContext): string[] {
  const missing: string[] = [];
  const notes: string[] = [];
  for (const target of chosen) {
    for (const need of target.needs(context)) {
      if (need.present) continue;
      if (context.dryRun && need.dryRunWithout) notes.push(`${target.name}: no ${need.what}: ${need.dryRunWithout}`);
      else missing.push(`  ${target.name}: ${need.what}: ${need.remedy}`);
    }
  }
  if (missing.length > 0)
    throw new PublishError(
      "publish",
      `nothing was sent; the chosen targets need what is missing:\n${missing.join("\n")}`,
    );
  return notes;
}

/**
 * Checks the release folder against its SHA256SUMS.
 *
 * @throws PublishError (target `release`) when SHA256SUMS is missing or a file differs from it
 */
function checkSums(release: string): void {
  let sums: string;
  try {
    sums = readFileSync(join(release, "SHA256SUMS"), "utf8");
  } catch (error) {
    throw new PublishError("release", `${release} has no SHA256SUMS: run npm run release`, { cause: error });
  }
  for (const line of sums.trim().split("\n")) {
    const [sum, name] = [line.slice(0, 64), line.slice(66)];
    let actual: string;
    try {
      actual = digestOf(join(release, name), "sha256");
    } catch (error) {
      throw new PublishError("release", `${release}/${name}, listed in SHA256SUMS, is missing: run npm run release`, {
        cause: error,
      });
    }
    if (actual !== sum)
      throw new PublishError("release", `${release}/${name} does not match SHA256SUMS: run npm run release`);
  }
}

/**
 * Publishes the release (see the module doc).
 *
 * @returns per target, what was published and what was present
 * @throws PublishError naming the target on a refusal or a missing requirement; Error on an unknown `--only` name
 */
export async function publish(
  options: PublishOptions,
): Promise<Array<{ target: string; published: string[]; present: string[] }>> {
  const print = (line: string) =>
    (options.print ?? ((text: string) => process.stdout.write(`${text}\n`)))(redactText(line));
  const note = (line: string) =>
    (options.note ?? ((text: string) => process.stderr.write(`${text}\n`)))(redactText(line));
  const unknown = (options.only ?? []).filter((name) => !TARGETS.some((target) => target.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown target ${unknown.join(", ")} (allowed: ${TARGETS.map((t) => t.name).join(", ")})`);
  const chosen = TARGETS.filter((target) => !options.only || options.only.includes(target.name));
  if (options.goProxy && options.goRemote)
    throw new Error("--go-remote and --go-proxy name two places for the Go module: give one");
  const release = resolve(options.release);
  const context: PublishContext = {
    release,
    version: releaseVersion(),
    root: ROOT,
    dryRun: options.dryRun === true,
    ...(options.goProxy ? { goProxy: resolve(options.goProxy) } : {}),
    ...(options.goRemote ? { goRemote: options.goRemote } : {}),
    ...(options.githubReleaseFolder ? { githubReleaseFolder: resolve(options.githubReleaseFolder) } : {}),
  };
  for (const line of checkNeeds(chosen, context)) note(line);
  checkSums(release);
  // Every target is asked before any sends: a missing requirement of the last stops the run before the first sends.
  const surveys = [];
  for (const target of chosen) surveys.push({ target, ...(await target.survey(context)) });
  const results = [];
  for (const { target, where, items } of surveys) {
    const missing = items.filter((item) => item.state === "missing").map((item) => item.what);
    const present = items.filter((item) => item.state === "present").map((item) => item.what);
    for (const what of present) print(`${target.name}: ${what} -> ${where}: present, skipped`);
    if (options.dryRun) {
      for (const what of missing) print(`${target.name}: ${what} -> ${where}: would publish`);
      results.push({ target: target.name, published: [], present });
      continue;
    }
    if (missing.length > 0) await target.send(context, missing);
    for (const what of missing) print(`${target.name}: ${what} -> ${where}: published`);
    results.push({ target: target.name, published: missing, present });
  }
  return results;
}

/** `npm run publish`'s options, as node:util `parseArgs` reads them (the one list the usage and refusals name). */
const OPTIONS = {
  only: { type: "string" },
  "dry-run": { type: "boolean", default: false },
  release: { type: "string" },
  "go-remote": { type: "string" },
  "go-proxy": { type: "string" },
  "github-release-folder": { type: "string" },
} as const;

/**
 * Reads the command line with node:util `parseArgs` in strict mode.
 *
 * @param args the arguments after the script's path
 * @returns the options given
 * @throws Error on an unknown option, an option without its value, or an argument that is not an option: parseArgs's
 *   message, followed by the allowed options
 */
function parsedFlags(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
  } catch (error) {
    const allowed = Object.keys(OPTIONS)
      .map((name) => `--${name}`)
      .join(", ");
    throw new Error(`${(error as Error).message} (allowed: ${allowed})`, { cause: error });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { values } = parsedFlags(process.argv.slice(2));
    const only = values.only?.split(",").filter(Boolean);
    await publish({
      release: values.release ?? join(ROOT, "release"),
      dryRun: values["dry-run"],
      ...(only ? { only } : {}),
      ...(values["go-proxy"] ? { goProxy: values["go-proxy"] } : {}),
      ...(values["go-remote"] ? { goRemote: values["go-remote"] } : {}),
      ...(values["github-release-folder"] ? { githubReleaseFolder: values["github-release-folder"] } : {}),
    });
  } catch (error) {
    process.stderr.write(`error: ${redactText((error as Error).message)}\n`);
    process.exitCode = 1;
  }
}
