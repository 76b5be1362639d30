/**
 * examples/typescript, a Pulumi program in TypeScript with the native provider's classes (`pulumi-helpdesk/native`),
 * run by the real `pulumi` with the Node.js language host built here (Node's type stripping runs the `.ts` entry)
 * against two emulators: see two-helpdesks.ts.
 */
import { join } from "node:path";
import { describeTwoHelpdesks, pluginBuilt, repoRoot } from "./two-helpdesks.js";
import { onPath, toolAvailable } from "../support/tools.js";

describeTwoHelpdesks("a TypeScript program with two help desks (examples/typescript)", {
  programDir: join(repoRoot, "examples", "typescript"),
  ready: () =>
    toolAvailable("the Pulumi CLI", onPath("pulumi")) &&
    toolAvailable("pulumi-language-nodejs", onPath("pulumi-language-nodejs")) &&
    toolAvailable("the provider plugin (plugin/pulumi-resource-helpdesk and the build's dist/provider/native/)", pluginBuilt()),
  prepare: async (env) => env,
});
