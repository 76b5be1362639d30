/**
 * The policy pack's policies (policy/policies.ts), each asked as the engine asks: over gRPC, of the built
 * executable under the analyzer's name (`node dist/bin/release.js pulumi-analyzer-helpdesk`, the very code the release
 * bundles), with properties as the engine sends them (secrets wrapped in Pulumi's signature, unknowns as its
 * sentinel) and config as `--policy-pack-config` sets it. And the host rule of `allowedHosts` (policy/rules.ts) on its
 * own: wildcards, ports, case, trailing dots, IDNA and IP literals; and the delivery-token rule on its own.
 *
 * Every violation is checked to name its resource and event and to hold no url, path, query or user info. The
 * webhooks of the cases have a delivery token (`useDeliveryToken: true`) unless a case is about it, so that each case
 * sees only the policy it is about.
 */

import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wantsDeliveryToken } from "../../kernel/delivery-token-inputs.js";
import {
  ANALYZER_EXECUTABLE,
  DYNAMIC_WEBHOOK_TYPE,
  PLUGIN_EXECUTABLE,
  POLICY_PACK,
  PROVIDER_TYPE,
  WEBHOOK_TYPE,
} from "../../kernel/names.js";
import { packageVersion } from "../../kernel/package-version.js";
import { UNKNOWN } from "../../kernel/pulumi-wire.js";
import { required } from "../../kernel/required.js";
import { POLICY_NAMES } from "../../policy/policies.js";
import { duplicateWebhooks, hostAllowed, hostEntries, hostEntry, webhookUrl } from "../../policy/rules.js";
import { asSecret } from "../../provider/native/properties.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import {
  type AnalyzedResource,
  type Diagnostic,
  type RunningAnalyzer,
  startAnalyzer,
  urnOf,
} from "../support/analyzer.js";

/** Whether `url`'s host is allowed by `entries`. */
const allows = (entries: string[], url: string): boolean =>
  hostAllowed(required(webhookUrl(url), `a webhook url: ${url}`), hostEntries(entries));

describe("the allowedHosts rule", () => {
  it("matches exact names in any case, on any port, with or without a trailing dot", () => {
    expect(allows(["hooks.example.com"], "https://hooks.example.com/x")).toBe(true);
    expect(allows(["HOOKS.Example.COM"], "https://hooks.example.com/x")).toBe(true);
    expect(allows(["hooks.example.com"], "https://HOOKS.EXAMPLE.COM:8443/x")).toBe(true);
    expect(allows(["hooks.example.com."], "https://hooks.example.com/x")).toBe(true);
    expect(allows(["hooks.example.com"], "https://hooks.example.com./x")).toBe(true);
    expect(allows(["hooks.example.com"], "https://other.example.com/x")).toBe(false);
    expect(allows(["hooks.example.com"], "https://hooks.example.com.evil.test/x")).toBe(false);
    expect(allows(["hooks.example.com"], "https://x.hooks.example.com/x")).toBe(false);
  });

  it("reads *. wildcards as any host below the domain, never the domain itself nor a look-alike", () => {
    expect(allows(["*.example.com"], "https://a.example.com/")).toBe(true);
    expect(allows(["*.example.com"], "https://a.b.EXAMPLE.com:444/")).toBe(true);
    expect(allows(["*.Example.Com"], "https://a.example.com/")).toBe(true);
    expect(allows(["*.example.com"], "https://example.com/")).toBe(false);
    expect(allows(["*.example.com"], "https://badexample.com/")).toBe(false);
    expect(allows(["*.example.com"], "https://example.com.evil.test/")).toBe(false);
  });

  it("compares hosts as WHATWG URL writes them: user info is no host, IDNA and IP literals are canonical", () => {
    expect(allows(["hooks.example.com"], "https://hooks.example.com@evil.test/")).toBe(false);
    expect(allows(["evil.test"], "https://hooks.example.com@evil.test/")).toBe(true);
    expect(allows(["bücher.example"], "https://xn--bcher-kva.example/")).toBe(true);
    expect(allows(["*.bücher.example"], "https://a.BÜCHER.example/")).toBe(true);
    expect(allows(["127.0.0.1"], "http://127.0.0.1:8080/x")).toBe(true);
    expect(allows(["[2001:db8::1]"], "https://[2001:0db8:0:0::1]:8443/")).toBe(true);
    expect(allows(["[2001:db8::1]"], "https://[2001:db8::2]/")).toBe(false);
  });

  it("refuses entries that are no host: a scheme, a port, a path, user info, a wildcard elsewhere than in front", () => {
    for (const entry of [
      "https://hooks.example.com",
      "hooks.example.com:443",
      "hooks.example.com/x",
      "user@hooks.example.com",
      "a.*.example.com",
      "*example.com",
      "*",
      "",
      " hooks.example.com",
    ]) {
      expect(hostEntry(entry), entry).toBeUndefined();
      expect(allows([entry], "https://hooks.example.com/"), entry).toBe(false);
    }
  });
});

describe("the duplicates rule", () => {
  const hook = (name: string, helpDesk: string, event: unknown, url: unknown) => ({
    name,
    urn: urnOf(WEBHOOK_TYPE, name),
    helpDesk,
    event,
    url,
  });

  it("pairs webhooks of one help desk with the same event and the same url as WHATWG URL writes it", () => {
    const found = duplicateWebhooks([
      hook("a", "desk", "ticket_opened", "https://H.example:443/x"),
      hook("b", "desk", "ticket_opened", "https://h.example/x"),
      hook("c", "other desk", "ticket_opened", "https://h.example/x"),
      hook("d", "desk", "ticket_closed", "https://h.example/x"),
      hook("e", "desk", "ticket_opened", "https://h.example/y"),
      hook("f", "desk", "ticket_opened", UNKNOWN),
      hook("g", "desk", "ticket_opened", "https://h.example/x"),
    ]);
    expect(found.map(({ duplicate, first }) => [duplicate.name, first.name])).toEqual([
      ["b", "a"],
      ["g", "a"],
    ]);
  });
});

/** The policy's reading of a webhook's token inputs (the provider's own, kernel/delivery-token-inputs.ts). */
const hasDeliveryToken = (useDeliveryToken: unknown, deliveryToken: unknown): boolean | "unknown" =>
  wantsDeliveryToken({ useDeliveryToken, deliveryToken });

describe("the delivery-token rule", () => {
  it("finds a token in useDeliveryToken: true or in any deliveryToken present: a string, a secret, one not known yet", () => {
    expect(hasDeliveryToken(true, undefined)).toBe(true);
    expect(hasDeliveryToken(undefined, "hdt_a-token-of-the-users-own-making")).toBe(true);
    expect(hasDeliveryToken(false, "hdt_a-token-of-the-users-own-making")).toBe(true);
    expect(hasDeliveryToken(undefined, asSecret("hdt_a-token-of-the-users-own-making"))).toBe(true);
    expect(hasDeliveryToken(undefined, UNKNOWN)).toBe(true);
    expect(hasDeliveryToken(UNKNOWN, UNKNOWN)).toBe(true);
    expect(hasDeliveryToken(UNKNOWN, "")).toBe(true);
  });

  it("finds none when both are absent, useDeliveryToken is not true, or deliveryToken is null", () => {
    expect(hasDeliveryToken(undefined, undefined)).toBe(false);
    expect(hasDeliveryToken(false, undefined)).toBe(false);
    expect(hasDeliveryToken("true", undefined)).toBe(false);
    expect(hasDeliveryToken(1, null)).toBe(false);
  });

  it("waits for pulumi up when useDeliveryToken is not known and no deliveryToken is present", () => {
    expect(hasDeliveryToken(UNKNOWN, undefined)).toBe("unknown");
    expect(hasDeliveryToken(UNKNOWN, null)).toBe("unknown");
  });
});

/** The parts of the test urls a message must never hold. */
const URL_PARTS = ["/secret-path", "token=", "s3cr3t", "user:", "hooks.example.com/"];

/** A webhook's delivery-token inputs: a delivery token minted by the provider, unless a case says otherwise. */
type TokenInputs = { useDeliveryToken?: unknown; deliveryToken?: unknown };

/** The token inputs of a webhook that has a delivery token. */
const WITH_TOKEN: TokenInputs = { useDeliveryToken: true };

/** A native webhook on a provider with a base URL. */
function nativeHook(
  name: string,
  event: unknown,
  url: unknown,
  baseUrl = "https://desk.example/api",
  token: TokenInputs = WITH_TOKEN,
): AnalyzedResource {
  return {
    type: WEBHOOK_TYPE,
    name,
    properties: { event, url, ...token } as Record<string, unknown>,
    provider: { type: PROVIDER_TYPE, name: `desk-${baseUrl.length}`, properties: { baseUrl } },
  };
}

/** A dynamic Webhook, as the dynamic provider's resources look to the engine. */
function dynamicHook(name: string, event: unknown, url: unknown, token: TokenInputs = WITH_TOKEN): AnalyzedResource {
  return {
    type: DYNAMIC_WEBHOOK_TYPE,
    name,
    properties: { event, url, ...token, __provider: "exports.handler = ..." } as Record<string, unknown>,
    provider: { type: "pulumi:providers:pulumi-nodejs", name: "default", properties: {} },
  };
}

/** Asserts a violation names its webhook and event and holds none of the url. */
function expectSafe(found: Diagnostic | undefined, name: string, event: string): void {
  const diagnostic = required(found, `the diagnostic of ${name}`);
  expect(diagnostic.message).toContain(`"${name}"`);
  expect(diagnostic.message).toContain(event);
  for (const part of URL_PARTS) expect(diagnostic.message).not.toContain(part);
}

describe("the analyzer (the built executable under its name), asked as the engine asks", () => {
  let analyzer: RunningAnalyzer;
  const secretUrl = "http://user:s3cr3t@hooks.example.com/secret-path?token=abc";

  beforeAll(async () => {
    analyzer = await startAnalyzer([process.execPath, join(repoRoot, "dist/bin/release.js"), ANALYZER_EXECUTABLE]);
  });
  afterAll(async () => {
    await analyzer?.close();
  });

  it("is the helpdesk pack of this package's version, with its policies, each at its own level", async () => {
    expect(await analyzer.info()).toEqual({
      name: POLICY_PACK,
      version: packageVersion(),
      policies: Object.values(POLICY_NAMES),
    });
    expect(ANALYZER_EXECUTABLE).toBe(PLUGIN_EXECUTABLE.replace("resource", "analyzer"));
    // analyzer.proto's EnforcementLevel: 0 advisory, 1 mandatory.
    expect(
      Object.fromEntries(
        (await analyzer.raw.info()).policiesList.map(({ name, enforcementlevel }) => [name, enforcementlevel]),
      ),
    ).toEqual({
      [POLICY_NAMES.https]: 1,
      [POLICY_NAMES.allowedHosts]: 1,
      [POLICY_NAMES.allowedEvents]: 1,
      [POLICY_NAMES.noDuplicates]: 1,
      [POLICY_NAMES.deliveryToken]: 0,
    });
  });

  it("webhook-url-https: refuses http, native and dynamic alike, mandatory by default; passes https", async () => {
    await analyzer.configure({});
    for (const make of [nativeHook, dynamicHook]) {
      const found = await analyzer.analyze(
        make("plain", "ticket_opened", "http://hooks.example.com/secret-path?token=abc"),
      );
      expect(found.map(({ policy, level }) => ({ policy, level }))).toEqual([
        { policy: POLICY_NAMES.https, level: "mandatory" },
      ]);
      expectSafe(found[0], "plain", "ticket_opened");
      expect(await analyzer.analyze(make("tls", "ticket_opened", "https://hooks.example.com/secret-path"))).toEqual([]);
    }
  });

  it("sees a url given as a secret and still shows none of it", async () => {
    await analyzer.configure({ [POLICY_NAMES.allowedHosts]: { allowedHosts: ["*.allowed.example"] } });
    const found = await analyzer.analyze(nativeHook("secret", "customer_added", asSecret(secretUrl)));
    expect(found.map(({ policy }) => policy).sort()).toEqual([POLICY_NAMES.https, POLICY_NAMES.allowedHosts].sort());
    for (const diagnostic of found) expectSafe(diagnostic, "secret", "customer_added");
    expect(found.find(({ policy }) => policy === POLICY_NAMES.allowedHosts)?.message).toContain('"hooks.example.com"');
  });

  it("finds no violation in a url or event unknown until apply (checked again by pulumi up)", async () => {
    await analyzer.configure({
      [POLICY_NAMES.allowedHosts]: { allowedHosts: ["allowed.example"] },
      [POLICY_NAMES.allowedEvents]: { events: ["ticket_opened"] },
    });
    expect(await analyzer.analyze(nativeHook("later", "ticket_opened", UNKNOWN))).toEqual([]);
    expect(await analyzer.analyze(dynamicHook("later", UNKNOWN, asSecret(UNKNOWN)))).toEqual([]);
    expect(await analyzer.analyze(nativeHook("later", UNKNOWN, "https://allowed.example/x"))).toEqual([]);
  });

  it("webhook-url-allowed-hosts: not enforced while unset; then exact names and wildcards, any case and port", async () => {
    await analyzer.configure({});
    expect(await analyzer.analyze(nativeHook("any", "ticket_opened", "https://anywhere.example/x"))).toEqual([]);
    await analyzer.configure({
      [POLICY_NAMES.allowedHosts]: { allowedHosts: ["hooks.example.com", "*.corp.example"] },
    });
    for (const url of [
      "https://HOOKS.example.com:8443/x",
      "https://a.b.corp.example/x",
      "https://hooks.example.com./x",
    ]) {
      expect(await analyzer.analyze(dynamicHook("inside", "ticket_opened", url)), url).toEqual([]);
    }
    const outside = await analyzer.analyze(
      dynamicHook("outside", "ticket_closed", "https://user:s3cr3t@corp.example/secret-path?token=abc"),
    );
    expect(outside.map(({ policy }) => policy)).toEqual([POLICY_NAMES.allowedHosts]);
    expectSafe(outside[0], "outside", "ticket_closed");
    expect(outside[0]?.message).toContain('"corp.example"');
  });

  it("webhook-event-allowed: not enforced while unset; then refuses other events", async () => {
    await analyzer.configure({});
    expect(await analyzer.analyze(nativeHook("any", "agent_invited", "https://h.example/x"))).toEqual([]);
    await analyzer.configure({ [POLICY_NAMES.allowedEvents]: { events: ["ticket_opened", "ticket_closed"] } });
    expect(await analyzer.analyze(nativeHook("allowed", "ticket_closed", "https://h.example/x"))).toEqual([]);
    const found = await analyzer.analyze(
      dynamicHook("other", "agent_invited", "https://hooks.example.com/secret-path"),
    );
    expect(found.map(({ policy }) => policy)).toEqual([POLICY_NAMES.allowedEvents]);
    expectSafe(found[0], "other", "agent_invited");
  });

  it("takes enforcement levels from the config: advisory reports without failing, disabled is silent", async () => {
    await analyzer.configure({ [POLICY_NAMES.https]: { enforcementLevel: "advisory" } });
    expect(
      (await analyzer.analyze(nativeHook("plain", "ticket_opened", "http://h.example/x"))).map(({ level }) => level),
    ).toEqual(["advisory"]);
    await analyzer.configure({ [POLICY_NAMES.https]: { enforcementLevel: "disabled" } });
    expect(await analyzer.analyze(nativeHook("plain", "ticket_opened", "http://h.example/x"))).toEqual([]);
  });

  it("leaves other resources and urls the provider's check refuses alone", async () => {
    await analyzer.configure({
      [POLICY_NAMES.allowedHosts]: { allowedHosts: ["allowed.example"] },
      [POLICY_NAMES.allowedEvents]: { events: ["ticket_opened"] },
    });
    expect(
      await analyzer.analyze({
        type: "aws:s3/bucket:Bucket",
        name: "b",
        properties: { url: "http://x.example", event: "agent_invited" },
      }),
    ).toEqual([]);
    expect(await analyzer.analyze(nativeHook("bad", "ticket_opened", "ftp://h.example/x"))).toEqual([]);
    expect(await analyzer.analyze(nativeHook("bad", "no_such_event", "https://allowed.example/x"))).toEqual([]);
  });

  it("webhook-no-duplicates: the same event and url on one help desk (by its base URL, or its provider), secret or not", async () => {
    await analyzer.configure({});
    const found = await analyzer.analyzeStack([
      nativeHook(
        "first",
        "ticket_opened",
        "https://hooks.example.com/secret-path?token=abc",
        "https://desk.example/api",
      ),
      nativeHook(
        "again",
        "ticket_opened",
        asSecret("https://HOOKS.example.com/secret-path?token=abc"),
        "https://DESK.example/api/",
      ),
      nativeHook(
        "elsewhere",
        "ticket_opened",
        "https://hooks.example.com/secret-path?token=abc",
        "https://other-desk.example",
      ),
      nativeHook("unknown", "ticket_opened", UNKNOWN),
      dynamicHook("dyn-a", "note_added", "https://hooks.example.com/secret-path?token=abc"),
      dynamicHook("dyn-b", "note_added", asSecret("https://hooks.example.com/secret-path?token=abc")),
      dynamicHook("dyn-c", "agent_replied", "https://hooks.example.com/secret-path?token=abc"),
    ]);
    expect(found.map(({ policy, level, urn }) => ({ policy, level, urn }))).toEqual([
      { policy: POLICY_NAMES.noDuplicates, level: "mandatory", urn: urnOf(WEBHOOK_TYPE, "again") },
      { policy: POLICY_NAMES.noDuplicates, level: "mandatory", urn: urnOf(DYNAMIC_WEBHOOK_TYPE, "dyn-b") },
    ]);
    expectSafe(found[0], "again", "ticket_opened");
    expect(found[0]?.message).toContain('"first"');
    expectSafe(found[1], "dyn-b", "note_added");
  });

  it("webhook-has-delivery-token: advisory by default, native and dynamic alike; mandatory or disabled by config", async () => {
    await analyzer.configure({});
    for (const make of [
      (token: TokenInputs) =>
        nativeHook("tokenless", "ticket_opened", "https://hooks.example.com/secret-path", undefined, token),
      (token: TokenInputs) => dynamicHook("tokenless", "ticket_opened", "https://hooks.example.com/secret-path", token),
    ]) {
      for (const token of [
        {},
        { useDeliveryToken: false },
        { useDeliveryToken: asSecret(false) },
        { deliveryToken: null },
      ]) {
        const found = await analyzer.analyze(make(token));
        expect(
          found.map(({ policy, level }) => ({ policy, level })),
          JSON.stringify(token),
        ).toEqual([{ policy: POLICY_NAMES.deliveryToken, level: "advisory" }]);
        expectSafe(found[0], "tokenless", "ticket_opened");
        expect(found[0]?.message).toContain("set useDeliveryToken: true");
        expect(found[0]?.message).toContain("receiver kit");
      }
      for (const token of [
        { useDeliveryToken: true },
        { useDeliveryToken: asSecret(true) },
        { deliveryToken: asSecret("hdt_the-users-own-token-s3cr3t") },
        { deliveryToken: "hdt_the-users-own-token-s3cr3t", useDeliveryToken: false },
        { deliveryToken: UNKNOWN },
        { deliveryToken: asSecret(UNKNOWN) },
        { deliveryToken: asSecret(UNKNOWN), useDeliveryToken: UNKNOWN },
      ]) {
        const response = await analyzer.raw.analyze(make(token));
        expect(response, JSON.stringify(token)).toEqual({ diagnosticsList: [], notApplicableList: [] });
      }
    }
    await analyzer.configure({ [POLICY_NAMES.deliveryToken]: { enforcementLevel: "mandatory" } });
    const mandatory = await analyzer.analyze(
      nativeHook("tokenless", "note_added", "https://h.example/x", undefined, {}),
    );
    expect(mandatory.map(({ policy, level }) => ({ policy, level }))).toEqual([
      { policy: POLICY_NAMES.deliveryToken, level: "mandatory" },
    ]);
    await analyzer.configure({ [POLICY_NAMES.deliveryToken]: { enforcementLevel: "disabled" } });
    expect(await analyzer.analyze(nativeHook("tokenless", "note_added", "https://h.example/x", undefined, {}))).toEqual(
      [],
    );
    // Another policy's config leaves this one at its own level.
    await analyzer.configure({ [POLICY_NAMES.allowedEvents]: { events: ["note_added"] } });
    expect(
      (await analyzer.analyze(dynamicHook("tokenless", "note_added", "https://h.example/x", {}))).map(
        ({ level }) => level,
      ),
    ).toEqual(["advisory"]);
  });

  it("webhook-has-delivery-token: not applicable while useDeliveryToken is not known and no deliveryToken is given", async () => {
    await analyzer.configure({ [POLICY_NAMES.deliveryToken]: { enforcementLevel: "mandatory" } });
    for (const useDeliveryToken of [UNKNOWN, asSecret(UNKNOWN)]) {
      const response = await analyzer.raw.analyze(
        dynamicHook("later", "ticket_opened", "https://h.example/x", { useDeliveryToken }),
      );
      expect(response).toEqual({
        diagnosticsList: [],
        notApplicableList: [
          {
            policyName: POLICY_NAMES.deliveryToken,
            reason: "the useDeliveryToken is not known until the webhook is created: pulumi up checks it then",
          },
        ],
      });
    }
  });

  it("quotes the event as JSON in every message: an escape sequence or a line break in it cannot forge terminal output", async () => {
    await analyzer.configure({});
    const event = "ticket_opened\u001b[31mFAKE\nline";
    const quoted = '(event "ticket_opened\\u001b[31mFAKE\\nline")';
    const single = await analyzer.analyze(nativeHook("raw", event, "http://h.example/x"));
    const stack = await analyzer.analyzeStack([
      dynamicHook("raw-a", event, "https://h.example/x"),
      dynamicHook("raw-b", event, "https://h.example/x"),
    ]);
    expect(single.map(({ policy }) => policy)).toEqual([POLICY_NAMES.https]);
    expect(stack.map(({ policy }) => policy)).toEqual([POLICY_NAMES.noDuplicates]);
    // The engine's message is the policy's description, a line break, then the reason: the reason is one line.
    const reasons = [...single, ...stack].map(({ message }) => message.split("\n").slice(1).join("\n"));
    expect(reasons[0]).toBe(
      `webhook "raw" ${quoted}: its url uses http, so every delivery would cross the network unencrypted; use an https url.`,
    );
    expect(reasons[1]).toContain(`webhook "raw-b" ${quoted} has the same event and url as webhook "raw-a"`);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a reason must hold no ESC
    for (const reason of reasons) expect(reason).not.toMatch(/[\u001b\n]/);
  });
});
