/**
 * The one place that relies on `@pulumi/policy` internals, all of version 1.21.0, the version package.json pins
 * exactly (devDependencies; the release executable bundles that very version): a newer `@pulumi/policy` is taken only
 * by changing the pin, after tests/policy/ pass with it. Three internals, each for a reason:
 *
 * - the unknown-checking proxy around a resource's properties ({@link rawProperty}): it throws on a value not known
 *   during preview, where a policy must instead say it does not apply yet;
 * - `serve` of `@pulumi/policy/server.js` ({@link serveAnalyzer}), exported but marked internal: the public
 *   `PolicyPack` reads the pack's version with `require(<working directory>/package.json)`, a file a self-contained
 *   executable does not have (its `require` loads built-in modules only) in a folder the engine chooses (the
 *   program's); `serve` is what the constructor calls next, with the version given;
 * - the working directory `PolicyPack` reads that `package.json` from ({@link servePackFolder}): the language host sets
 *   it to the pack's folder, which has none of its own (one version: the package's).
 *
 * `@pulumi/policy` is loaded only when a pack is served (a dynamic import), so the policies themselves
 * (`policies.ts`) load none of it: only its types.
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

/** `@pulumi/policy` 1.21.0 `server.js` `serve` (its declaration file declares none). */
type Serve = (name: string, version: string, enforcementLevel: string, args: PolicyPackArgs, initialConfig: undefined) => void;

/**
 * Serves a pack as a binary analyzer plugin with `@pulumi/policy`'s own Analyzer gRPC service: prints its port on
 * stdout, then serves `GetAnalyzerInfo`, `Configure`, `Analyze`, `AnalyzeStack` until the engine ends the process.
 *
 * @param name the pack's name
 * @param version the pack's version
 * @param args the policies and the pack's enforcement level
 * @throws what loading `@pulumi/policy` or starting its server throws (the returned promise rejects)
 */
export async function serveAnalyzer(name: string, version: string, args: PolicyPackArgs): Promise<void> {
  const { default: server } = await import("@pulumi/policy/server.js");
  (server as unknown as { serve: Serve }).serve(name, version, args.enforcementLevel ?? "advisory", args, undefined);
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
