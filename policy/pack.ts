/**
 * The policy pack as a Node.js policy pack: the program of the folder `policy/` of the npm package
 * (`policy/index.js` loads it), which `pulumi preview --policy-pack node_modules/pulumi-helpdesk/policy` runs through
 * the Node.js language host (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: a folder with a
 * `PulumiPolicy.yaml` is run by its runtime's language host, `@pulumi/pulumi/cmd/run-policy-pack`). It serves
 * `policy/policies.ts` with the program's own `@pulumi/policy` (an optional peer dependency of pulumi-helpdesk), by
 * its public `PolicyPack`.
 *
 * `PolicyPack` takes the pack's version from `package.json` in the working directory, which the language host sets
 * to the pack's folder; the folder has none of its own (one version: the package's), so this moves to the package's
 * root first, whose `package.json` is pulumi-helpdesk's. Nothing else of the pack reads the working directory.
 */
import { PolicyPack } from "@pulumi/policy";
import { POLICY_PACK } from "../kernel/names.js";
import { packageRoot } from "../kernel/package-version.js";
import { PACK_ENFORCEMENT_LEVEL, POLICIES } from "./policies.js";

process.chdir(packageRoot());
new PolicyPack(POLICY_PACK, { policies: POLICIES, enforcementLevel: PACK_ENFORCEMENT_LEVEL });
