/**
 * The policy pack as a Node.js policy pack: the program of the folder `policy/` of the npm package
 * (`policy/index.js` loads it), which `pulumi preview --policy-pack node_modules/pulumi-helpdesk/policy` runs through
 * the Node.js language host (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: a folder with a
 * `PulumiPolicy.yaml` is run by its runtime's language host, `@pulumi/pulumi/cmd/run-policy-pack`). It serves
 * `policy/policies.ts` with the program's own `@pulumi/policy` (an optional peer dependency of pulumi-helpdesk), by
 * its public `PolicyPack`.
 *
 * `PolicyPack` reads the pack's version from the working directory's `package.json`: `policy/pulumi-policy.ts`
 * serves it from the package's root.
 */
import { POLICY_PACK } from "../kernel/names.js";
import { packageRoot } from "../kernel/package-version.js";
import { PACK_ENFORCEMENT_LEVEL, POLICIES } from "./policies.js";
import { servePackFolder } from "./pulumi-policy.js";

servePackFolder(POLICY_PACK, packageRoot(), { policies: POLICIES, enforcementLevel: PACK_ENFORCEMENT_LEVEL }).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
