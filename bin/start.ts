/**
 * How every executable of the package starts (`bin/pulumi-helpdesk.ts`, `bin/pulumi-resource-helpdesk.ts`,
 * `bin/pulumi-analyzer-helpdesk.ts`): the running Node.js is checked before the program is loaded, because the
 * programs' dependencies (undici, commander, `@pulumi/pulumi` and its `@grpc/grpc-js`) fail on an old Node.js with stack traces
 * that name none of the cause; then the program is loaded by a dynamic import, so that nothing of it is even linked
 * before the check. No top-level await: the release bundle is CommonJS.
 */
import { nodeVersionProblem } from "../kernel/node-support.js";

/**
 * Starts one program: exits with code 1 and one line on stderr on an unsupported Node.js (`kernel/node-support.ts`),
 * or when the program fails to load; otherwise the loaded module runs (each program is a side-effect module).
 *
 * @param load imports the program's module, e.g. `() => import("../cli/main.js")`
 */
export function start(load: () => Promise<unknown>): void {
  const problem = nodeVersionProblem();
  if (problem) {
    process.stderr.write(`error: ${problem}\n`);
    process.exit(1);
  }
  load().catch((error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
