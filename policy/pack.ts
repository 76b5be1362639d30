/**
 * The policy pack as a Node.js policy pack: the program of the folder `policy/` of the npm package
 * (`policy/index.js` loads it), which `pulumi preview --policy-pack node_modules/pulumi-helpdesk/policy` runs through
 * the Node.js language host (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: a folder with a
 * `PulumiPolicy.yaml` is run by its runtime's language host, `@pulumi/pulumi/cmd/run-policy-pack`). It serves the
 * table of `policy/policies.ts` with the program's own `@pulumi/policy` (an optional peer dependency of
 * pulumi-helpdesk), by its public `PolicyPack`: the convention TypeScript teams know. The release executable serves the
 * same table with a server of its own (`policy/server.ts`); tests/policy/parity.test.ts holds their responses equal.
 *
 * Each policy of the table becomes a `@pulumi/policy` policy: a resource's properties are read past `@pulumi/policy`'s
 * unknown-checking proxy (`policy/pulumi-policy.ts` `rawProperty`), so that an unknown value is seen as the sentinel
 * instead of thrown; a not-applicable verdict is `args.notApplicable`, a violation `reportViolation`. `PolicyPack`
 * reads the pack's version from the working directory's `package.json`: `policy/pulumi-policy.ts` serves it from the
 * package's root.
 *
 * Source: `@pulumi/policy` 1.21.0 `policy.d.ts`.
 */
import type {
  PolicyResource as PulumiPolicyResource,
  ResourceValidationPolicy,
  StackValidationPolicy,
} from "@pulumi/policy";
import { POLICY_PACK } from "../kernel/names.js";
import { packageRoot } from "../kernel/package-version.js";
import {
  PACK_ENFORCEMENT_LEVEL,
  POLICIES,
  type Policy,
  type PolicyConfigSchema,
  type PolicyResource,
} from "./policies.js";
import { rawProperty, servePackFolder } from "./pulumi-policy.js";

/** A resource as `@pulumi/policy` gives it, as the table's policies read it. */
function policyResource(
  resource: Pick<PulumiPolicyResource, "type" | "name" | "urn" | "props" | "provider">,
): PolicyResource {
  const provider = resource.provider;
  return {
    type: resource.type,
    name: resource.name,
    urn: resource.urn,
    property: (key) => rawProperty(resource.props, key),
    provider: provider && { urn: provider.urn, property: (key) => rawProperty(provider.props, key) },
  };
}

/** `@pulumi/policy`'s config schema (mutable arrays) of the table's. */
function configSchemaOf(schema: PolicyConfigSchema | undefined): ResourceValidationPolicy["configSchema"] {
  return (
    schema && {
      properties: schema.properties as Record<string, Record<string, never>>,
      ...(schema.required ? { required: [...schema.required] } : {}),
    }
  );
}

/** One policy of the table as a `@pulumi/policy` policy. */
function asPulumiPolicy(policy: Policy): ResourceValidationPolicy | StackValidationPolicy {
  const common = {
    name: policy.name,
    description: policy.description,
    enforcementLevel: policy.enforcementLevel,
    configSchema: configSchemaOf(policy.configSchema),
  };
  if (policy.kind === "stack") {
    return {
      ...common,
      validateStack: (args, reportViolation) => {
        for (const { message, urn } of policy.validateStack(args.resources.map(policyResource), args.getConfig()))
          reportViolation(message, urn);
      },
    };
  }
  return {
    ...common,
    validateResource: (args, reportViolation) => {
      const verdict = policy.validateResource(policyResource(args), policy.prepare(args.getConfig()));
      if (verdict === undefined) return;
      if ("notApplicable" in verdict) args.notApplicable(verdict.notApplicable);
      else reportViolation(verdict.violation);
    },
  };
}

servePackFolder(POLICY_PACK, packageRoot(), {
  policies: POLICIES.map(asPulumiPolicy),
  enforcementLevel: PACK_ENFORCEMENT_LEVEL,
}).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
