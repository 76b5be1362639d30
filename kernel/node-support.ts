/**
 * Which Node.js versions pulumi-helpdesk runs on: the one home of that rule. `package.json`'s `engines.node` states
 * the same floor (a unit test holds them equal).
 *
 * Why 22.12: the package is ESM only, and a CommonJS Pulumi program (the shape most Pulumi TypeScript projects have)
 * loads it with `require()`, which can load an ES module without a flag only from Node 22.12 on; `undici` 8 and
 * `@pulumi/pulumi`'s newest releases also need Node >= 22 (on Node 20 undici dies at load with
 * `TypeError: Cannot read properties of undefined (reading 'bind')`).
 *
 * This module imports no dependency (only the error family's root, plain ES2022), so every entry point (the CLI, the
 * provider, the emulator, the program-facing SDK) can run it before any dependency is loaded and stop with one
 * readable line instead of a dependency's stack trace.
 */
import { PulumiHelpdeskError } from "./errors.js";

/** The oldest supported Node.js version, `major.minor.patch`. */
export const MINIMUM_NODE_VERSION = "22.12.0";

/** Where to get a supported Node.js: one line for people. */
const HOW_TO_GET_NODE = "install Node.js 22.12 or newer (e.g. the current LTS from nodejs.org, or `nvm install --lts`)";

/**
 * Tells whether a Node.js version is too old for pulumi-helpdesk.
 *
 * @param version a Node.js version as `process.versions.node` gives it, e.g. `"20.20.2"` (default: the running one)
 * @returns one line naming the version found, the version needed and how to get it; undefined when supported
 */
export function nodeVersionProblem(version: string = process.versions.node): string | undefined {
  const found = version.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const needed = MINIMUM_NODE_VERSION.split(".").map(Number);
  for (let i = 0; i < needed.length; i++) {
    const a = found[i] ?? 0;
    const b = needed[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      return `pulumi-helpdesk needs Node.js >= ${MINIMUM_NODE_VERSION}, but this is Node.js ${version}: ${HOW_TO_GET_NODE}.`;
    }
  }
  return undefined;
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
 * @throws {UnsupportedNodeError} when the running Node.js is older than {@link MINIMUM_NODE_VERSION}
 */
export function assertSupportedNode(): void {
  const problem = nodeVersionProblem();
  if (problem) {
    const error = new UnsupportedNodeError("unsupported_node", problem);
    error.stack = `${error.name}: ${problem}`; // one line: the trace inside this module tells a user nothing
    throw error;
  }
}
