/**
 * The config keys (kernel/config.ts): one mapping from a setting to its `namespace:key`, for the default namespace
 * (`helpdesk:*`) and for the namespaces `pulumi-helpdesk login --namespace <ns>` writes, and what a namespace may be.
 */
import { describe, expect, it } from "vitest";
import {
  CONFIG_KEYS,
  ConfigNamespaceError,
  configKeysFor,
  configNamespaceProblem,
  SECRET_CONFIG_KEYS,
  secretConfigKeysFor,
} from "../../kernel/config.js";
import { PulumiHelpdeskError } from "../../kernel/errors.js";
import { SETTING_NAMES } from "../../kernel/settings.js";

describe("config keys per namespace", () => {
  it("CONFIG_KEYS is the helpdesk namespace's, with the names the provider has always read", () => {
    expect(CONFIG_KEYS).toEqual(configKeysFor("helpdesk"));
    expect(CONFIG_KEYS).toEqual({
      baseUrl: "helpdesk:baseUrl",
      clientId: "helpdesk:clientId",
      clientSecret: "helpdesk:clientSecret",
      redirectUri: "helpdesk:redirectUri",
      accessToken: "helpdesk:accessToken",
      refreshToken: "helpdesk:refreshToken",
      tokenExpiresAt: "helpdesk:tokenExpiresAt",
      maxRetries: "helpdesk:maxRetries",
      requestTimeout: "helpdesk:requestTimeout",
    });
    expect(Object.isFrozen(CONFIG_KEYS)).toBe(true);
    expect(SECRET_CONFIG_KEYS).toEqual(["helpdesk:clientSecret", "helpdesk:accessToken", "helpdesk:refreshToken"]);
  });

  it("derives every setting's key under another namespace, secrets the same settings", () => {
    const eu = configKeysFor("helpdesk-eu");
    for (const name of SETTING_NAMES) expect(eu[name]).toBe(`helpdesk-eu:${name}`);
    expect(secretConfigKeysFor("eu")).toEqual(["eu:clientSecret", "eu:accessToken", "eu:refreshToken"]);
  });

  it("accepts package- and project-like names", () => {
    for (const ok of ["eu", "helpdesk-eu", "desk_2", "EU", "acme.eu", "a".repeat(100)])
      expect(configNamespaceProblem(ok), ok).toBeUndefined();
  });

  it.each([
    ["", /the namespace is empty/],
    ["   ", /the namespace is empty/],
    ["eu:accessToken", /contains ":", which separates a namespace from its key/],
    ["pulumi", /"pulumi" is reserved: it is Pulumi's own namespace/],
    ["Config", /"Config" is reserved: Pulumi reads `<namespace>:config:<key>`/],
    ["eu west", /"eu west" is not allowed/],
    ["2eu", /"2eu" is not allowed/],
    ["eu/west", /"eu\/west" is not allowed/],
    ["a".repeat(101), /is not allowed/],
  ])("refuses %j with a message saying what is allowed", (namespace, why) => {
    const problem = configNamespaceProblem(namespace);
    expect(problem).toMatch(why);
    expect(problem).toMatch(/letters, digits, "-", "_" or "\."|choose another, e\.g\. eu/);
    const error = (() => {
      try {
        configKeysFor(namespace);
      } catch (caught) {
        return caught;
      }
      throw new Error("configKeysFor accepted it");
    })();
    expect(error).toBeInstanceOf(ConfigNamespaceError);
    expect(error).toBeInstanceOf(PulumiHelpdeskError);
    expect(error).toMatchObject({
      code: "invalid_namespace",
      name: "ConfigNamespaceError",
      namespace,
      message: problem,
    });
  });
});
