/**
 * The policy pack's two shipping forms answer alike: the folder form (`dist/policy/pack.js`, the table of
 * policy/policies.ts served by `@pulumi/policy`'s `PolicyPack`) and the release executable's analyzer
 * (`dist/bin/release.js pulumi-analyzer-helpdesk`, the same table served by policy/server.ts), each asked over gRPC as the
 * engine asks. For the same configs, resources and stacks, every field of their responses is equal: `GetAnalyzerInfo`
 * (policies, levels, config schemas), `Analyze` and `AnalyzeStack` (each diagnostic's policy, pack, version,
 * description, message, enforcement level and URN; the not-applicable policies and why) and `Remediate`.
 *
 * The cases are drawn by fast-check from a fixed seed (a failure names the case): webhooks native, dynamic and of other
 * types; events and urls valid, invalid, unknown during preview, secret (however deep), absent; delivery-token
 * inputs (`useDeliveryToken`, `deliveryToken`) of every kind the policy tells apart; providers with and without a
 * base URL; configs setting each policy's level (advisory, mandatory, remediate, disabled), `allowedHosts` and
 * `events`.
 */

import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENTS } from "../../kernel/events.js";
import { ANALYZER_EXECUTABLE, DYNAMIC_WEBHOOK_TYPE, PROVIDER_TYPE, WEBHOOK_TYPE } from "../../kernel/names.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { required } from "../../kernel/required.js";
import { POLICY_NAMES } from "../../policy/policies.js";
import { asSecret } from "../../provider/native/properties.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { type AnalyzedResource, type RunningAnalyzer, startAnalyzer } from "../support/analyzer.js";

/** The seed of the drawn cases: the same cases on every run. */
const SEED = 20261127;

/** A value, or that value as a secret, or as a secret inside a secret (undefined, no value, stays undefined). */
const maybeSecret = (value: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> => {
  const wrapped = (wrap: (inner: unknown) => unknown) =>
    value.map((inner) => (inner === undefined ? inner : wrap(inner)));
  return fc.oneof(
    { arbitrary: value, weight: 4 },
    { arbitrary: wrapped(asSecret), weight: 1 },
    { arbitrary: wrapped((inner) => asSecret(asSecret(inner))), weight: 1 },
  );
};

/** Urls of every kind the policies tell apart; `undefined`: no url at all. */
const urls = maybeSecret(
  fc.oneof(
    fc.constantFrom<unknown>(
      "https://hooks.example.com/secret-path?token=abc",
      "http://hooks.example.com/secret-path",
      "https://HOOKS.Example.com:8443/x",
      "https://hooks.example.com./x",
      "https://a.corp.example/x",
      "https://a.b.CORP.example/x",
      "https://corp.example/x",
      "https://user:s3cr3t@evil.test/x",
      "https://hooks.example.com@evil.test/x",
      "https://xn--bcher-kva.example/x",
      "https://[2001:0db8:0:0::1]:8443/x",
      "http://127.0.0.1:8080/x",
      "ftp://h.example/x",
      "not a url",
      "",
      UNKNOWN,
      7,
      null,
      { url: "https://hooks.example.com/x" },
      undefined,
    ),
    fc.webUrl(),
  ),
);

/** Events: every help-desk event, one that is none, unknown, not a string, absent. */
const events = maybeSecret(fc.constantFrom<unknown>(...EVENTS, "no_such_event", UNKNOWN, 42, undefined));

/** `useDeliveryToken`: true, false, unknown, not a boolean, absent. */
const useDeliveryTokens = maybeSecret(fc.constantFrom<unknown>(true, false, UNKNOWN, "true", undefined, undefined));

/** `deliveryToken`: a token, an empty one, unknown, null, absent (most often). */
const deliveryTokens = maybeSecret(
  fc.constantFrom<unknown>("hdt_the-users-own-token-s3cr3t", "", UNKNOWN, null, undefined, undefined, undefined),
);

/** A provider: none (the engine's default provider is still a provider, but a case without one is allowed), or one with a base URL. */
const providers = fc.option(
  fc.record({
    name: fc.constantFrom("desk", "other-desk", "default_0_2_0"),
    baseUrl: maybeSecret(
      fc.constantFrom<unknown>(
        "https://desk.example/api",
        "https://DESK.example/api/",
        "https://other.example",
        "not a url",
        UNKNOWN,
        undefined,
      ),
    ),
  }),
  { nil: undefined },
);

/** A resource as the engine describes it: a webhook (native or dynamic) or another type. */
const resources: fc.Arbitrary<AnalyzedResource> = fc
  .record({
    type: fc.constantFrom(WEBHOOK_TYPE, WEBHOOK_TYPE, DYNAMIC_WEBHOOK_TYPE, "aws:s3/bucket:Bucket"),
    name: fc.oneof(fc.constantFrom("a", "b", "c", "twin"), fc.string({ maxLength: 12 })),
    event: events,
    url: urls,
    useDeliveryToken: useDeliveryTokens,
    deliveryToken: deliveryTokens,
    provider: providers,
  })
  .map(({ type, name, event, url, useDeliveryToken, deliveryToken, provider }) => {
    const properties: Record<string, unknown> = {};
    if (event !== undefined) properties.event = event;
    if (url !== undefined) properties.url = url;
    if (useDeliveryToken !== undefined) properties.useDeliveryToken = useDeliveryToken;
    if (deliveryToken !== undefined) properties.deliveryToken = deliveryToken;
    if (type === DYNAMIC_WEBHOOK_TYPE) properties.__provider = "exports.handler = ...";
    const providerProperties: Record<string, unknown> = {};
    if (provider?.baseUrl !== undefined) providerProperties.baseUrl = provider.baseUrl;
    return {
      type,
      name,
      properties,
      ...(provider
        ? {
            provider: {
              type: type === DYNAMIC_WEBHOOK_TYPE ? "pulumi:providers:pulumi-nodejs" : PROVIDER_TYPE,
              name: provider.name,
              properties: providerProperties,
            },
          }
        : {}),
    };
  });

/** A policy's level in a config, or none. */
const levels = fc.constantFrom(undefined, "advisory", "mandatory", "remediate", "disabled");

/** A pack config as `--policy-pack-config` sets it: any policy's level, `allowedHosts`, `events`. */
const configs: fc.Arbitrary<Record<string, Record<string, unknown>>> = fc
  .record({
    https: levels,
    hosts: levels,
    allowedHosts: fc.option(
      fc.subarray(
        [
          "hooks.example.com",
          "*.corp.example",
          "bücher.example",
          "[2001:db8::1]",
          "127.0.0.1",
          "HOOKS.EXAMPLE.COM.",
          "*.example.com",
        ],
        { minLength: 1 },
      ),
      { nil: undefined },
    ),
    events: levels,
    allowedEvents: fc.option(fc.subarray([...EVENTS], { minLength: 1, maxLength: 4 }), { nil: undefined }),
    duplicates: levels,
    token: levels,
  })
  .map(({ https, hosts, allowedHosts, events: eventsLevel, allowedEvents, duplicates, token }) => {
    const config: Record<string, Record<string, unknown>> = {};
    const set = (policy: string, level: string | undefined, properties: Record<string, unknown> = {}): void => {
      if (level === undefined && Object.keys(properties).length === 0) return;
      config[policy] = { ...(level ? { enforcementLevel: level } : {}), ...properties };
    };
    set(POLICY_NAMES.https, https);
    set(POLICY_NAMES.allowedHosts, hosts, allowedHosts ? { allowedHosts } : {});
    set(POLICY_NAMES.allowedEvents, eventsLevel, allowedEvents ? { events: allowedEvents } : {});
    set(POLICY_NAMES.noDuplicates, duplicates);
    set(POLICY_NAMES.deliveryToken, token);
    return config;
  });

describe("the policy pack's two forms, asked the same questions", () => {
  let folder: RunningAnalyzer;
  let executable: RunningAnalyzer;

  beforeAll(async () => {
    [folder, executable] = await Promise.all([
      startAnalyzer([process.execPath, join(repoRoot, "dist/policy/pack.js")]),
      startAnalyzer([process.execPath, join(repoRoot, "dist/bin/release.js"), ANALYZER_EXECUTABLE]),
    ]);
  });
  afterAll(async () => {
    await Promise.all([folder?.close(), executable?.close()]);
  });

  it("describe the same pack: name, version, policies, levels and config schemas", async () => {
    const [fromFolder, fromExecutable] = await Promise.all([folder.raw.info(), executable.raw.info()]);
    expect(fromExecutable).toEqual(fromFolder);
    expect(fromFolder.policiesList.map((policy) => policy.name)).toEqual(Object.values(POLICY_NAMES));
  });

  it("give equal answers to Analyze, AnalyzeStack and Remediate, for every drawn config, resource and stack", async () => {
    // Each stack ends with twins of its first resources (another name, the same inputs): duplicates when they are webhooks.
    const stacks = fc
      .array(resources, { minLength: 4, maxLength: 12 })
      .map((drawn) => [
        ...drawn,
        ...drawn.slice(0, 2).map((resource) => ({ ...resource, name: `${resource.name}-twin` })),
      ]);
    const cases = fc.sample(fc.record({ config: configs, resources: stacks }), { numRuns: 40, seed: SEED });
    // What the responses held, so that a run that checked nothing (every response empty) fails.
    const seen = new Set<string>();
    for (const [index, { config, resources: stack }] of cases.entries()) {
      await Promise.all([folder.configure(config), executable.configure(config)]);
      const where = `case ${index}: config ${JSON.stringify(config)}`;
      for (const resource of stack) {
        const what = `${where}, resource ${JSON.stringify(resource)}`;
        const [fromFolder, fromExecutable] = await Promise.all([
          folder.raw.analyze(resource),
          executable.raw.analyze(resource),
        ]);
        expect(fromExecutable, what).toEqual(fromFolder);
        for (const diagnostic of fromFolder.diagnosticsList)
          seen.add(`${diagnostic.policyname} ${diagnostic.enforcementlevel}`);
        for (const policy of fromFolder.notApplicableList) seen.add(`not applicable: ${policy.policyName}`);
      }
      const first = required(stack[0], "the stack's first resource");
      const [remediatedByFolder, remediatedByExecutable] = await Promise.all([
        folder.raw.remediate(first),
        executable.raw.remediate(first),
      ]);
      expect(remediatedByExecutable, `${where}, Remediate`).toEqual(remediatedByFolder);
      for (const policy of remediatedByFolder.notApplicableList) seen.add(`not remediated: ${policy.policyName}`);
      const [stackByFolder, stackByExecutable] = await Promise.all([
        folder.raw.analyzeStack(stack),
        executable.raw.analyzeStack(stack),
      ]);
      expect(stackByExecutable, `${where}, stack ${JSON.stringify(stack)}`).toEqual(stackByFolder);
      for (const diagnostic of stackByFolder.diagnosticsList)
        seen.add(`${diagnostic.policyname} ${diagnostic.enforcementlevel}`);
    }
    // Every policy was violated at some level, some policy was not applicable, and remediate was answered.
    for (const policy of Object.values(POLICY_NAMES))
      expect(
        [...seen].some((entry) => entry.startsWith(`${policy} `)),
        `${policy} violated`,
      ).toBe(true);
    expect(
      [...seen].some((entry) => entry.startsWith("not applicable: ")),
      "a policy not applicable",
    ).toBe(true);
    // The delivery-token policy was seen at its own level (advisory, 0) and at one the config set (mandatory, 1), and
    // not applicable (its useDeliveryToken unknown).
    for (const entry of ["0", "1"].map((level) => `${POLICY_NAMES.deliveryToken} ${level}`))
      expect(seen.has(entry), entry).toBe(true);
    expect(seen.has(`not applicable: ${POLICY_NAMES.deliveryToken}`), "the delivery-token policy not applicable").toBe(
      true,
    );
    expect(
      [...seen].some((entry) => entry.startsWith("not remediated: ")),
      "a policy at remediate",
    ).toBe(true);
  });
});
