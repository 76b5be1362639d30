/**
 * The one place that relies on `@pulumi/policy` internals, all of version 1.21.0, the version package.json pins
 * exactly (devDependencies): a newer `@pulumi/policy` is taken only by changing the pin, after tests/policy/ pass with
 * it. Two internals, each for a reason, both for the npm folder form (`policy/pack.ts`; the release executable's
 * analyzer, `policy/server.ts`, uses no `@pulumi/policy`):
 *
 * - the unknown-checking proxy around a resource's properties ({@link rawProperty}): it throws on a value not known
 *   during preview, where a policy must instead say it does not apply yet;
 * - the working directory `PolicyPack` reads the pack's version from, with `require(<working directory>/package.json)`
 *   ({@link servePackFolder}): the language host sets it to the pack's folder, which has none of its own (one version:
 *   the package's).
 *
 * `@pulumi/policy` is loaded only when the pack is served (a dynamic import), so the policies themselves
 * (`policies.ts`) load none of it.
 * @home what is used of `@pulumi/policy`'s internals, and its pinned version
 */
import type { PolicyPackArgs } from "@pulumi/policy";

/**
 * A property as deserialised, read past `@pulumi/policy`'s unknown-checking proxy (which has only a `get` trap: the
 * property's descriptor is the target's), so that an unknown value is seen as Pulumi's sentinel
 * (`kernel/pulumi-wire.ts` `UNKNOWN`) instead of thrown.
 *
 * @param props a resource's or provider's `props`
 * @param key the property's name
 * @returns its value; `UNKNOWN` when not known during preview; undefined when absent
 */
export function rawProperty(props: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(props, key)?.value;
}

/**
 * Serves a pack by the public `PolicyPack`, as the Node.js language host runs a policy pack folder, from the package
 * whose root is `packageRoot` (its `package.json` gives the version).
 *
 * @param name the pack's name
 * @param packageRoot the folder of the package's `package.json`
 * @param args the policies and the pack's enforcement level
 * @throws what loading `@pulumi/policy` or `PolicyPack` throws (the returned promise rejects)
 */
export async function servePackFolder(name: string, packageRoot: string, args: PolicyPackArgs): Promise<void> {
  const { PolicyPack } = await import("@pulumi/policy");
  process.chdir(packageRoot);
  new PolicyPack(name, args);
}
