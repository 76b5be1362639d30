/**
 * Test support: the Node.js versions the installed packages declare (`engines.node`), to hold the package's floor
 * (kernel/node-support.ts) to what its dependencies need.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** A package as installed in `node_modules`. */
export interface InstalledPackage {
  name: string;
  version: string;
  /** Its `package.json`'s `engines.node`, when it has one. */
  enginesNode: string | undefined;
  /** The folder it is installed in. */
  dir: string;
}

interface Manifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The folder Node.js resolves package `name` to from `from`: the nearest `node_modules/<name>` up the tree. */
function installedDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", name, "package.json"))) return join(dir, "node_modules", name);
    if (dirname(dir) === dir) return undefined;
  }
}

/**
 * Every package a user's installation of the package at `root` loads: its `dependencies` and `peerDependencies`
 * (`@pulumi/pulumi`), and theirs (`dependencies`, `optionalDependencies`), recursively, as installed under `root`.
 * An optional dependency that is not installed is left out.
 *
 * @param root the package's folder (holds `package.json` and `node_modules`)
 * @throws Error naming a required dependency that is not installed (run `npm ci`)
 */
export function installedDependencies(root: string): InstalledPackage[] {
  const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
  const top = manifest(root);
  const queue: { name: string; from: string; optional: boolean }[] = Object.keys({
    ...top.dependencies,
    ...top.peerDependencies,
  }).map((name) => ({ name, from: root, optional: false }));
  const found = new Map<string, InstalledPackage>();
  for (let next = queue.shift(); next; next = queue.shift()) {
    const dir = installedDir(next.name, next.from);
    if (dir === undefined) {
      if (next.optional) continue;
      throw new Error(`${next.name} (needed from ${next.from}) is not installed: run npm ci`);
    }
    if (found.has(dir)) continue;
    const own = manifest(dir);
    found.set(dir, { name: own.name, version: own.version, enginesNode: own.engines?.node, dir });
    for (const name of Object.keys(own.dependencies ?? {})) queue.push({ name, from: dir, optional: false });
    for (const name of Object.keys(own.optionalDependencies ?? {})) queue.push({ name, from: dir, optional: true });
  }
  return [...found.values()];
}

/** A version as three numbers; `x`, `*` and missing parts are `undefined`. */
type Partial3 = [number | undefined, number | undefined, number | undefined];

const parsePartial = (text: string): Partial3 => {
  const parts = text.replace(/^v/, "").split(".");
  const part = (i: number): number | undefined => {
    const text = parts[i];
    return text === undefined || /^[x*X]$/.test(text) ? undefined : Number(text);
  };
  const parsed: Partial3 = [part(0), part(1), part(2)];
  if (parsed.some((p) => p !== undefined && !Number.isInteger(p))) throw new Error(`not a version: "${text}"`);
  return parsed;
};

/** A version as three numbers, `major.minor.patch`. */
type Version = readonly [number, number, number];

const compare = ([a0, a1, a2]: Version, [b0, b1, b2]: Version): number => a0 - b0 || a1 - b1 || a2 - b2;

/**
 * Whether an `engines.node` range admits a version, with npm's semver rules for the forms packages use: alternatives
 * joined by `||`, each one or more comparators (`>=`, `>`, `<=`, `<`, `=`, `^`, `~`, or a bare version) all of which
 * must hold; partial versions (`18`, `14.16`, `6.*`, `>= 10.*`) as semver reads them. Pre-release tags and hyphen
 * ranges are not read.
 *
 * @param range e.g. `^18.19.0 || >=20.6.0`
 * @param version `major.minor.patch`, e.g. `22.20.0`
 * @throws Error on a form it does not read, so that a new form is looked at rather than passed
 */
export function rangeAdmits(range: string, version: string): boolean {
  const [vMajor = Number.NaN, vMinor = Number.NaN, vPatch = Number.NaN] = version.split(".").map(Number);
  const v: Version = [vMajor, vMinor, vPatch];
  return range.split("||").some((alternative) => {
    const comparators = alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1")
      .split(/\s+/)
      .filter(Boolean);
    if (comparators.length === 0) return true; // "" and "*" admit everything
    return comparators.every((comparator) => {
      const [, op = "", partial] = /^(>=|<=|>|<|=|\^|~)?(.+)$/.exec(comparator) ?? [];
      if (partial === undefined || /-/.test(partial))
        throw new Error(`engines.node "${range}": cannot read "${comparator}"`);
      const [major, minor, patch] = parsePartial(partial);
      if (major === undefined) return true; // "*", "x"
      const low: Version = [major, minor ?? 0, patch ?? 0];
      // The first version past a partial version: 18 -> 19.0.0, 14.16 -> 14.17.0.
      const pastPartial: Version | undefined =
        minor === undefined ? [major + 1, 0, 0] : patch === undefined ? [major, minor + 1, 0] : undefined;
      switch (op) {
        case ">=":
          return compare(v, low) >= 0;
        case ">":
          return pastPartial ? compare(v, pastPartial) >= 0 : compare(v, low) > 0;
        case "<":
          return compare(v, low) < 0;
        case "<=":
          return pastPartial ? compare(v, pastPartial) < 0 : compare(v, low) <= 0;
        case "^": {
          // Up to the next change of the first non-zero part: ^22.20.0 < 23.0.0, ^0.2.3 < 0.3.0, ^0.0.3 < 0.0.4.
          const high: Version =
            major > 0 || minor === undefined
              ? [major + 1, 0, 0]
              : minor > 0 || patch === undefined
                ? [0, minor + 1, 0]
                : [0, 0, patch + 1];
          return compare(v, low) >= 0 && compare(v, high) < 0;
        }
        case "~":
          return (
            compare(v, low) >= 0 && compare(v, minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0]) < 0
          );
        default: // "=" or a bare version: exactly it, or anything within a partial one
          return pastPartial ? compare(v, low) >= 0 && compare(v, pastPartial) < 0 : compare(v, low) === 0;
      }
    });
  });
}
