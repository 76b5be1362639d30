#!/usr/bin/env node
/**
 * The entry of the self-contained release executable, which is each of the package's executables by the name it is
 * invoked by (`process.argv[1]` holds that name, in a Node single executable application as under `node`), or by a
 * first argument naming one:
 *
 * - `pulumi-resource-helpdesk` (the name Pulumi runs a resource plugin by): the native provider plugin;
 * - `pulumi-analyzer-helpdesk` (the name of the policy pack's executable): the policy pack as a binary analyzer plugin;
 * - any other name (`pulumi-helpdesk`, `release.js`), or `pulumi-helpdesk` as its first argument: the CLI.
 *
 * Each name's program is its entry in `bin/` (which checks the running Node.js first); the others are never evaluated.
 */
import {
  ANALYZER_EXECUTABLE as ANALYZER_NAME,
  CLI_EXECUTABLE as CLI_NAME,
  PLUGIN_EXECUTABLE as PLUGIN_NAME,
} from "../kernel/names.js";

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
  const invokedAs = ((argv[1] ?? "").split(/[\\/]/).at(-1) ?? "").replace(/\.exe$/i, "");
  const named = programNamed(argv[2]);
  if (named !== undefined) return { program: named, argv: [...argv.slice(0, 2), ...argv.slice(3)] };
  return { program: programNamed(invokedAs) ?? "cli", argv: [...argv] };
}

const chosen = programOf(process.argv);
process.argv.splice(0, process.argv.length, ...chosen.argv);
if (chosen.program === "plugin") void import("./pulumi-resource-helpdesk.js");
else if (chosen.program === "analyzer") void import("./pulumi-analyzer-helpdesk.js");
else void import("./pulumi-helpdesk.js");
