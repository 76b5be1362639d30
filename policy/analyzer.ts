/**
 * The policy pack as a binary analyzer plugin: what the release executable is when invoked as
 * `pulumi-analyzer-helpdesk` (`bin/release.ts`), which `pulumi preview --policy-pack <folder>/pulumi-analyzer-helpdesk`
 * launches directly, as it launches a provider (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: an
 * executable file given as the pack is run with the engine's address as its argument). It serves `policy/policies.ts`
 * with `@pulumi/policy`'s own Analyzer gRPC service, so it answers exactly as the folder form (`policy/pack.ts`) does:
 * prints its port on stdout, then serves `GetAnalyzerInfo`, `Configure`, `Analyze`, `AnalyzeStack` until the engine
 * ends it. No Node.js is needed where the executable runs.
 *
 * How it serves (`@pulumi/policy`'s internal `serve`) and why: `policy/pulumi-policy.ts`.
 *
 * The engine's address (the argument) is not used: policies log nothing to the engine.
 */
import { POLICY_PACK } from "../kernel/names.js";
import { packageVersion } from "../kernel/package-version.js";
import { PACK_ENFORCEMENT_LEVEL, POLICIES } from "./policies.js";
import { serveAnalyzer } from "./pulumi-policy.js";

serveAnalyzer(POLICY_PACK, packageVersion(), { policies: POLICIES, enforcementLevel: PACK_ENFORCEMENT_LEVEL }).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
