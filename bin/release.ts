#!/usr/bin/env node
/**
 * The `pulumi-helpdesk` executable, and the entry of the self-contained release executable, which serves two names:
 *
 * - invoked as `pulumi-resource-helpdesk` (the name Pulumi runs a resource plugin by; `process.argv[1]` holds the
 *   name it was invoked by, in a Node single executable application as under `node`), or with that name as its first
 *   argument, it is the native provider plugin (`provider/native/main.ts`);
 * - invoked as `pulumi-analyzer-helpdesk` (the name of the policy pack's executable), or with that name as its first
 *   argument, it is the policy pack as a binary analyzer plugin (`policy/analyzer.ts`);
 * - under any other name (`pulumi-helpdesk`, `bin.js`), or with `pulumi-helpdesk` as its first argument, it is the
 *   CLI (`cli/main.ts`).
 *
 * It checks the running Node.js before anything else is loaded, because the command's dependencies (undici,
 * commander, `@pulumi/pulumi`) fail on old Node.js with stack traces that name none of the cause; then it loads the one
 * program asked for (the other is never evaluated). Exit code 1 on an unsupported Node.js. No top-level await: the
 * release bundle is CommonJS.
 */
import { ANALYZER_EXECUTABLE as ANALYZER_NAME, CLI_EXECUTABLE as CLI_NAME, PLUGIN_EXECUTABLE as PLUGIN_NAME } from "../kernel/names.js";
import { nodeVersionProblem } from "../kernel/node-support.js";

/** The programs of the executable, by the name that asks for each. */
const PROGRAMS = { [PLUGIN_NAME]: "plugin", [ANALYZER_NAME]: "analyzer", [CLI_NAME]: "cli" } as const;

/** One of the programs the executable is. */
type Program = (typeof PROGRAMS)[keyof typeof PROGRAMS];

/** @returns the program a name asks for, if it is one of {@link PROGRAMS}' names */
function programNamed(name: string | undefined): Program | undefined {
  return name !== undefined && Object.hasOwn(PROGRAMS, name) ? PROGRAMS[name as keyof typeof PROGRAMS] : undefined;
}

/**
 * Which program this invocation asks for, and the `process.argv` that program must see.
 *
 * @param argv `process.argv`: `[node or the executable, the name invoked (script or executable), ...arguments]`
 * @returns `plugin`, `analyzer` or `cli`, with `argv` minus a leading name argument
 */
function programOf(argv: readonly string[]): { program: Program; argv: string[] } {
  const invokedAs = (argv[1] ?? "").split(/[\\/]/).pop()!.replace(/\.exe$/i, "");
  const named = programNamed(argv[2]);
  if (named !== undefined) return { program: named, argv: [argv[0]!, argv[1]!, ...argv.slice(3)] };
  return { program: programNamed(invokedAs) ?? "cli", argv: [...argv] };
}

const problem = nodeVersionProblem();
if (problem) {
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
const chosen = programOf(process.argv);
process.argv.splice(0, process.argv.length, ...chosen.argv);
const loaded =
  chosen.program === "plugin" ? import("../provider/native/main.js") : chosen.program === "analyzer" ? import("../policy/analyzer.js") : import("../cli/main.js");
loaded.catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
