/**
 * The policy pack as a binary analyzer plugin: what the release executable is when invoked as
 * `pulumi-analyzer-helpdesk` (`bin/release.ts`), which `pulumi preview --policy-pack <folder>/pulumi-analyzer-helpdesk`
 * launches directly, as it launches a provider (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: an
 * executable file given as the pack is run with the engine's address as its argument). It serves `policy/policies.ts`
 * with `@pulumi/policy`'s own Analyzer gRPC service, so it answers exactly as the folder form (`policy/pack.ts`) does:
 * prints its port on stdout, then serves `GetAnalyzerInfo`, `Configure`, `Analyze`, `AnalyzeStack` until the engine
 * ends it. No Node.js is needed where the executable runs.
 *
 * Why `serve` (`@pulumi/policy/server`, exported but marked internal) instead of the public `PolicyPack`: the
 * constructor reads the pack's version with `require(<working directory>/package.json)`, a file a self-contained
 * executable does not have (its `require` loads built-in modules only) and a folder the engine chooses (the program's).
 * `serve` is what the constructor calls next, with the version given. It is pinned by the exact `@pulumi/policy`
 * version the release bundles (package.json devDependencies), and tests/policy/policies.test.ts runs it.
 *
 * The engine's address (the argument) is not used: policies log nothing to the engine.
 */
import policyServer from "@pulumi/policy/server.js";
import type { PolicyPackArgs } from "@pulumi/policy";
import { POLICY_PACK } from "../kernel/names.js";
import { packageVersion } from "../kernel/package-version.js";
import { PACK_ENFORCEMENT_LEVEL, POLICIES } from "./policies.js";

/** `@pulumi/policy` 1.21.0 `server.js` `serve` (its declaration file declares none). */
type Serve = (name: string, version: string, enforcementLevel: string, args: PolicyPackArgs, initialConfig: undefined) => void;

(policyServer as unknown as { serve: Serve }).serve(POLICY_PACK, packageVersion(), PACK_ENFORCEMENT_LEVEL, { policies: POLICIES, enforcementLevel: PACK_ENFORCEMENT_LEVEL }, undefined);
