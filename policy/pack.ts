/**
 * The policy pack as a Node.js policy pack: the program of the folder `policy/` of the npm package
 * (`policy/index.js` loads it), which `pulumi preview --policy-pack node_modules/pulumi-helpdesk/policy` runs through
 * the Node.js language host (pulumi/pulumi v3.259 `pkg/resource/plugin/analyzer_plugin.go`: a folder with a
 * `PulumiPolicy.yaml` is run by its runtime's language host, `@pulumi/pulumi/cmd/run-policy-pack`). It serves the
 * table of `policy/policies.ts` with the program's own `@pulumi/policy` (an optional peer dependency of
 * pulumi-helpdesk), by its public `PolicyPack`: the convention TypeScript teams know. The release executable serves the
 * same table with a server of its own (`policy/server.ts`); tests/policy/parity.test.ts holds their answers equal.
 *
 * Each policy of the table becomes a `@pulumi/policy` policy: a resource's properties are read past `@pulumi/policy`'s
 * unknown-checking proxy (which has only a `get` trap: the property's descriptor is the target's), so that an unknown
 * value is seen as the sentinel instead of thrown; a not-applicable verdict is `args.notApplicable`, a violation
 * `reportViolation`.
 *
 * `PolicyPack` takes the pack's version from `package.json` in the working directory, which the language host sets
 * to the pack's folder; the folder has none of its own (one version: the package's), so this moves to the package's
 * root first, whose `package.json` is pulumi-helpdesk's. Nothing else of the pack reads the working directory.
 *
 * Source: `@pulumi/policy` 1.21.0 `policy.d.ts`.
 */
import { PolicyPack, type PolicyResource as PulumiPolicyResource, type ResourceValidationPolicy, type StackValidationPolicy } from "@pulumi/policy";
import { POLICY_PACK } from "../kernel/names.js";
import { packageRoot } from "../kernel/package-version.js";
import { PACK_ENFORCEMENT_LEVEL, POLICIES, type Policy, type PolicyConfigSchema, type PolicyResource } from "./policies.js";

/**
 * A property as deserialised, read past `@pulumi/policy`'s unknown-checking proxy.
 *
 * @param props a resource's or provider's `props`
 * @returns a reader of its properties: the value; the unknown sentinel when not known; undefined when absent
 */
function reader(props: object): (key: string) => unknown {
  return (key) => Object.getOwnPropertyDescriptor(props, key)?.value;
}

/** A resource as `@pulumi/policy` gives it, as the table's policies read it. */
function policyResource(resource: Pick<PulumiPolicyResource, "type" | "name" | "urn" | "props" | "provider">): PolicyResource {
  const provider = resource.provider;
  return {
    type: resource.type,
    name: resource.name,
    urn: resource.urn,
    property: reader(resource.props),
    provider: provider && { urn: provider.urn, property: reader(provider.props) },
  };
}

/** `@pulumi/policy`'s config schema (mutable arrays) of the table's. */
function configSchemaOf(schema: PolicyConfigSchema | undefined): ResourceValidationPolicy["configSchema"] {
  return schema && { properties: schema.properties as Record<string, Record<string, never>>, ...(schema.required ? { required: [...schema.required] } : {}) };
}

/** One policy of the table as a `@pulumi/policy` policy. */
function asPulumiPolicy(policy: Policy): ResourceValidationPolicy | StackValidationPolicy {
  const common = { name: policy.name, description: policy.description, enforcementLevel: policy.enforcementLevel, configSchema: configSchemaOf(policy.configSchema) };
  if (policy.kind === "stack") {
    return {
      ...common,
      validateStack: (args, reportViolation) => {
        for (const { message, urn } of policy.validateStack(args.resources.map(policyResource), args.getConfig())) reportViolation(message, urn);
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

process.chdir(packageRoot());
new PolicyPack(POLICY_PACK, { policies: POLICIES.map(asPulumiPolicy), enforcementLevel: PACK_ENFORCEMENT_LEVEL });
