#!/usr/bin/env node
/**
 * The `pulumi-helpdesk` executable. It checks the running Node.js before anything else is loaded, because the
 * command's dependencies (undici, commander, `@pulumi/pulumi`) fail on old Node.js with stack traces that name
 * none of the cause; then it loads the command itself. Exit code 1 on an unsupported Node.js.
 */
import { nodeVersionProblem } from "../sdk/node-support.js";

const problem = nodeVersionProblem();
if (problem) {
  process.stderr.write(`error: ${problem}\n`);
  process.exit(1);
}
await import("./main.js");
