/**
 * `npm run publish` (scripts/publish.sh): publishes the release folder `npm run release` wrote to every registry, in
 * this order: the GitHub release (the plugin archives every SDK downloads), npm, PyPI, Maven, Go. Each target is
 * configured by its tool's own settings (scripts/publish/<target>.ts says which); none takes a credential on the
 * command line.
 *
 *   npm run publish -- [--only github,npm,pypi,maven,go] [--dry-run] [--release <dir>]
 *                      [--go-proxy <folder>] [--github-release-folder <folder>]
 *
 * - Before anything is sent, every chosen target checks what its registry needs (`twine check`, the POM's elements,
 *   the tarballs' versions, a committed sdk/go) and asks its registry what it already holds. The release folder's
 *   files must match its SHA256SUMS.
 * - What a registry holds with the very same bytes is skipped, so a rerun after a failure publishes what is missing.
 * - `--dry-run` prints what would be sent where, and sends nothing.
 * - A refusal (authentication, a version already there with other bytes) stops the run with a message naming the
 *   target and where it sends; exit status 1.
 *
 * Prints one line per item: `<target>: <what> -> <where>: published | present, skipped | would publish`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { releaseFacts, ROOT } from "../release/executable.ts";
import { digestOf, PublishError, type PublishContext, type Target } from "./common.ts";
import { githubTarget } from "./github.ts";
import { goTarget } from "./go.ts";
import { mavenTarget } from "./maven.ts";
import { npmTarget } from "./npm.ts";
import { pypiTarget } from "./pypi.ts";

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
  githubReleaseFolder?: string;
  /** where the lines go (default: stdout) */
  print?: (line: string) => void;
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
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const unknown = (options.only ?? []).filter((name) => !TARGETS.some((target) => target.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown target ${unknown.join(", ")} (allowed: ${TARGETS.map((t) => t.name).join(", ")})`);
  const chosen = TARGETS.filter((target) => !options.only || options.only.includes(target.name));
  const release = resolve(options.release);
  checkSums(release);
  const context: PublishContext = {
    release,
    version: releaseFacts().version,
    root: ROOT,
    ...(options.goProxy ? { goProxy: resolve(options.goProxy) } : {}),
    ...(options.githubReleaseFolder ? { githubReleaseFolder: resolve(options.githubReleaseFolder) } : {}),
  };
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
      ...(values["github-release-folder"] ? { githubReleaseFolder: values["github-release-folder"] } : {}),
    });
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
