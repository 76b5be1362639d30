/**
 * How the person typed this CLI, so that a command it prints for them to type next works as theirs did: under npx
 * (`npx pulumi-helpdesk ...`, the npm package installed in a project, not on PATH) the same prefix, else the bare
 * name (the release executable, or the package installed globally).
 * @home how the person typed the CLI, for a command it prints to be typed next (`npx pulumi-helpdesk` or `pulumi-helpdesk`)
 */
import { CLI_EXECUTABLE } from "../../kernel/names.js";

/**
 * The `npm_lifecycle_event` npm gives a command it runs for `npx` and `npm exec` (npm's libnpmexec runs the package's
 * bin with the event `npx`; @npmcli/run-script exports it as this variable).
 */
export const NPX_LIFECYCLE_EVENT = { name: "npm_lifecycle_event", value: "npx" } as const;

/**
 * The command to print in place of `pulumi-helpdesk`: `npx pulumi-helpdesk` when npx (or `npm exec`) started this
 * process, else `pulumi-helpdesk`.
 *
 * @param env the process's environment (default `process.env`)
 */
export function invokedCommand(env: NodeJS.ProcessEnv = process.env): string {
  return env[NPX_LIFECYCLE_EVENT.name] === NPX_LIFECYCLE_EVENT.value ? `npx ${CLI_EXECUTABLE}` : CLI_EXECUTABLE;
}
