/**
 * Is a release version a prerelease, and what it is called on each registry: the one home of that rule, for
 * `npm run publish` (scripts/publish/) and the release workflow's scripts.
 *
 * A version is package.json's, semver `MAJOR.MINOR.PATCH` with an optional prerelease part of one of the forms
 * {@link PRERELEASE_FORMS} names (`0.4.0-rc.1`). Only those forms: each has a PEP 440 pre-release segment (`a`, `b`,
 * `rc`), and Pulumi's Python generator (helpdesk-codegen, which writes sdk/python/pyproject.toml) maps exactly these
 * to it; another prerelease part (`-next.1`) it turns into a PEP 440 local version (`1.0.0+next.`, measured), which
 * PyPI refuses. Build metadata (`+...`) is not allowed either (npm drops it, PyPI refuses local versions).
 *
 * A prerelease publishes npm under the dist-tag `next` (never moving `latest`), a GitHub release marked prerelease and
 * not latest, the Python SDK as a PEP 440 pre-release (`0.4.0rc1`), and the Go module at `v0.4.0-rc.1` (Go's
 * versions are semver, so the tag keeps the form).
 *
 *   node scripts/publish/prerelease.ts <version>   prints the npm dist-tag, `next` or `latest`; exit 1 and one line
 *                                                  on stderr for a version of no allowed form
 *
 * Imports nothing (plain Node.js runs it, with no node_modules or build).
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The prerelease parts a version may have, semver identifiers with their PEP 440 segment: `-rc.1` is `rc1`. */
export const PRERELEASE_FORMS = { alpha: "a", beta: "b", rc: "rc" } as const;

/** A release version read by {@link parseVersion}. */
export interface ReleaseVersion {
  /** `MAJOR.MINOR.PATCH`, e.g. `"0.4.0"` */
  release: string;
  /** the prerelease part, e.g. `{ kind: "rc", number: 1 }` for `-rc.1`; undefined for a release */
  prerelease?: { kind: keyof typeof PRERELEASE_FORMS; number: number };
}

const VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-(alpha|beta|rc)\.(0|[1-9]\d*))?$/;

/**
 * Reads a release version.
 *
 * @param version package.json's version, e.g. `"0.4.0-rc.1"`
 * @returns its release and prerelease parts
 * @throws Error naming the version and the allowed forms when it is not `MAJOR.MINOR.PATCH` with an optional
 *   `-alpha.N`, `-beta.N` or `-rc.N`
 */
export function parseVersion(version: string): ReleaseVersion {
  const match = VERSION.exec(version);
  if (!match) {
    const forms = Object.keys(PRERELEASE_FORMS)
      .map((kind) => `-${kind}.N`)
      .join(", ");
    throw new Error(
      `${JSON.stringify(version)} is not a release version: MAJOR.MINOR.PATCH, optionally followed by one of ${forms} (a prerelease PyPI, npm and Go all accept)`,
    );
  }
  const release = `${match[1]}.${match[2]}.${match[3]}`;
  if (!match[4]) return { release };
  return {
    release,
    prerelease: { kind: match[4] as keyof typeof PRERELEASE_FORMS, number: Number(match[5]) },
  };
}

/**
 * @param version a release version (see {@link parseVersion})
 * @returns whether it is a prerelease (`0.4.0-rc.1`)
 * @throws Error for a version of no allowed form
 */
export function isPrerelease(version: string): boolean {
  return parseVersion(version).prerelease !== undefined;
}

/**
 * The npm dist-tag a version is published under: `next` for a prerelease (a user's `npm install <name>` keeps
 * getting `latest`), `latest` for a release.
 *
 * @throws Error for a version of no allowed form
 */
export function npmDistTag(version: string): "next" | "latest" {
  return isPrerelease(version) ? "next" : "latest";
}

/**
 * The PEP 440 form of a version, as the generated Python SDK's pyproject.toml states it and its wheel is named:
 * `0.4.0-rc.1` is `0.4.0rc1`, `0.4.0-alpha.2` is `0.4.0a2`, `0.4.0` is `0.4.0`.
 *
 * @throws Error for a version of no allowed form
 */
export function pep440Version(version: string): string {
  const { release, prerelease } = parseVersion(version);
  return prerelease ? `${release}${PRERELEASE_FORMS[prerelease.kind]}${prerelease.number}` : release;
}

/**
 * The file names `python -m build` gives the Python SDK's artefacts (PEP 427 wheel, PEP 625 sdist), with the PEP 440
 * version.
 *
 * @param distribution the distribution's name, kernel/names.ts `PYTHON_PACKAGE` (`pulumi_helpdesk`)
 * @param version the release version, e.g. `"0.4.0-rc.1"`
 * @returns e.g. `{ wheel: "pulumi_helpdesk-0.4.0rc1-py3-none-any.whl", sdist: "pulumi_helpdesk-0.4.0rc1.tar.gz" }`
 */
export function pythonArtefactNamesOf(distribution: string, version: string): { wheel: string; sdist: string } {
  const pep440 = pep440Version(version);
  return { wheel: `${distribution}-${pep440}-py3-none-any.whl`, sdist: `${distribution}-${pep440}.tar.gz` };
}

/**
 * The Go module version of a release version: `v` and the semver, prerelease kept (`v0.4.0-rc.1`), which Go orders
 * before `v0.4.0` and `go get <module>@latest` skips while a release exists.
 *
 * @throws Error for a version of no allowed form
 */
export function goVersion(version: string): string {
  parseVersion(version);
  return `v${version}`;
}

/**
 * The flags of `gh release create` that mark the GitHub release: a prerelease is `--prerelease --latest=false` (the
 * repository's "latest release" stays the last release); a release has none (GitHub marks the highest version
 * latest, so a patch of an older line does not take it).
 *
 * @throws Error for a version of no allowed form
 */
export function githubReleaseFlags(version: string): string[] {
  return isPrerelease(version) ? ["--prerelease", "--latest=false"] : [];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [version, ...others] = process.argv.slice(2);
  if (version === undefined || others.length > 0) {
    process.stderr.write("usage: node scripts/publish/prerelease.ts <version>  (prints next or latest)\n");
    process.exitCode = 1;
  } else {
    try {
      process.stdout.write(`${npmDistTag(version)}\n`);
    } catch (error) {
      process.stderr.write(`error: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}
