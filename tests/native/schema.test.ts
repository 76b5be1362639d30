/**
 * The native provider's package schema: built from the project's definitions (events, url rule, config keys and
 * which are secret, descriptions, version), and served unchanged by the real plugin over gRPC (`GetSchema`, after
 * `Handshake` and `GetPluginInfo`), the way the engine asks for it; and the same plugin's answers to Check,
 * CheckConfig, Diff and DiffConfig, built by one builder per message (`provider/native/proto.ts`).
 */

import { readFileSync } from "node:fs";
import type * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECRET_CONFIG_KEYS } from "../../kernel/config.js";
import { DELIVERY_TOKEN_INPUTS, DELIVERY_TOKEN_SECRET_OUTPUTS } from "../../kernel/delivery-token-inputs.js";
import { EVENT_DESCRIPTION, EVENTS } from "../../kernel/events.js";
import { githubRepository, LOGO_FILE, WEBHOOK_EVENT_TYPE, WEBHOOK_TYPE } from "../../kernel/names.js";
import { required } from "../../kernel/required.js";
import { PROVIDER_SETTING_NAMES, SETTINGS, type SettingSpec } from "../../kernel/settings.js";
import { URL_RULE_DESCRIPTION } from "../../kernel/webhook-rules.js";
import { emptyPb, providerPb } from "../../provider/native/proto.js";
import { buildSchema } from "../../provider/native/schema.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { type ProviderClient, type RunningPlugin, startPlugin, struct, webhookCalls } from "../support/plugin.js";

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
  version: string;
  repository: { url: string };
};

describe("native provider schema", () => {
  const schema = buildSchema();

  it("names the package helpdesk at the package.json version, with a python package pulumi_helpdesk and an npm package under the owner's scope", () => {
    expect(schema.name).toBe("helpdesk");
    expect(schema.version).toBe(pkg.version);
    expect(schema.language.python?.packageName).toBe("pulumi_helpdesk");
    expect(schema.language.nodejs?.packageName).toBe("@pulumi-helpdesk/helpdesk");
  });

  it("links the repository as its homepage and repository, and a logo that is an SVG file of the repository at the release's tag", () => {
    const repository = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
    expect(schema).toMatchObject({ homepage: repository, repository });
    const { owner, name } = githubRepository();
    expect(schema.logoUrl).toBe(`https://raw.githubusercontent.com/${owner}/${name}/v${pkg.version}/${LOGO_FILE}`);
    expect(readFileSync(`${repoRoot}${LOGO_FILE}`, "utf8")).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 \d+ \d+"/,
    );
  });

  it("offers exactly the 14 events of kernel/events.ts as the event enum", () => {
    expect(schema.types[WEBHOOK_EVENT_TYPE]?.enum.map((entry) => entry.value)).toEqual([...EVENTS]);
    expect(schema.types[WEBHOOK_EVENT_TYPE]?.description).toBe(EVENT_DESCRIPTION);
    const webhook = required(schema.resources["helpdesk:index:Webhook"], "the schema's Webhook resource");
    expect(webhook.inputProperties.event?.$ref).toBe(`#/types/${WEBHOOK_EVENT_TYPE}`);
    expect(webhook.inputProperties.url?.description).toContain(URL_RULE_DESCRIPTION);
    expect(webhook.requiredInputs).toEqual(["event", "url"]);
    expect(Object.keys(webhook.properties).sort()).toEqual([
      "deliveryToken",
      "deliveryTokenRotation",
      "event",
      "registeredUrl",
      "state",
      "url",
      "useDeliveryToken",
    ]);
  });

  it("offers the delivery token as opt-in inputs, the token and the registered url always secret", () => {
    const webhook = required(schema.resources["helpdesk:index:Webhook"], "the schema's Webhook resource");
    expect(Object.keys(webhook.inputProperties).sort()).toEqual(["event", "url", ...DELIVERY_TOKEN_INPUTS].sort());
    expect(webhook.inputProperties.useDeliveryToken?.type).toBe("boolean");
    expect(webhook.inputProperties.deliveryToken?.secret).toBe(true);
    const secretOutputs = Object.entries(webhook.properties).filter(([, property]) => property.secret);
    expect(secretOutputs.map(([name]) => name).sort()).toEqual([...DELIVERY_TOKEN_SECRET_OUTPUTS].sort());
  });

  it("derives the provider config from the settings table: every setting but redirectUri, credentials secret, env vars, ranges and defaults named", () => {
    expect(PROVIDER_SETTING_NAMES).not.toContain("redirectUri");
    for (const section of [schema.config.variables, schema.provider.inputProperties]) {
      expect(Object.keys(section)).toEqual(PROVIDER_SETTING_NAMES);
      for (const [name, property] of Object.entries(section)) {
        const spec: SettingSpec = SETTINGS[name as keyof typeof SETTINGS];
        expect(property.secret === true, name).toBe(SECRET_CONFIG_KEYS.includes(`helpdesk:${name}`));
        expect(property.description.startsWith(spec.description.replace(/\.$/, ""))).toBe(true);
        if (spec.env) expect(property.description).toContain(`environment variable \`${spec.env}\` fills it`);
        if (spec.range)
          expect(property.description).toContain(
            `from ${spec.range.min} to ${spec.range.max} (default ${spec.default})`,
          );
      }
    }
    expect(schema.config.variables.maxRetries?.type).toBe("integer");
    expect(schema.config.variables.requestTimeout?.type).toBe("integer");
    // Provider outputs never offer a credential.
    for (const name of Object.keys(schema.provider.properties))
      expect(SECRET_CONFIG_KEYS).not.toContain(`helpdesk:${name}`);
  });

  describe("served by the plugin", () => {
    let plugin: RunningPlugin;
    let client: ProviderClient;

    beforeAll(async () => {
      plugin = await startPlugin();
      client = plugin.client;
    });

    afterAll(() => plugin?.close());

    it("responds to Handshake, GetPluginInfo and GetSchema with the built schema", async () => {
      const handshake = await new Promise<InstanceType<typeof providerPb.ProviderHandshakeResponse>>(
        (resolve, reject) =>
          client.handshake(new providerPb.ProviderHandshakeRequest().setEngineAddress(""), (error, response) =>
            error ? reject(error) : resolve(response),
          ),
      );
      expect(handshake.getAcceptSecrets()).toBe(true);
      const info = await new Promise<string>((resolve, reject) =>
        client.getPluginInfo(new emptyPb.Empty(), (error, response) =>
          error ? reject(error) : resolve(response.getVersion()),
        ),
      );
      expect(info).toBe(pkg.version);
      const served = await new Promise<string>((resolve, reject) =>
        client.getSchema(new providerPb.GetSchemaRequest(), (error, response) =>
          error ? reject(error) : resolve(response.getSchema()),
        ),
      );
      expect(JSON.parse(served)).toEqual(schema);
      // The build writes the same document (when dist/ is built).
      let written: string | undefined;
      try {
        written = readFileSync(`${repoRoot}dist/schema.json`, "utf8");
      } catch {
        written = undefined;
      }
      if (written !== undefined) expect(JSON.parse(written)).toEqual(schema);
    });

    it("responds to Check and CheckConfig with the inputs to record and every failure, Diff and DiffConfig with what changed and what replaces", async () => {
      const urn = "urn:pulumi:dev::p::helpdesk:index:Webhook::w";
      const check = (method: "check" | "checkConfig", news: Record<string, unknown>) =>
        new Promise<InstanceType<typeof providerPb.CheckResponse>>((resolve, reject) =>
          client[method](
            new providerPb.CheckRequest().setUrn(urn).setType(WEBHOOK_TYPE).setNews(struct(news)),
            (error, response) => (error ? reject(error) : resolve(response)),
          ),
        );
      const diff = (method: "diff" | "diffConfig", olds: Record<string, unknown>, news: Record<string, unknown>) =>
        new Promise<InstanceType<typeof providerPb.DiffResponse>>((resolve, reject) =>
          client[method](
            new providerPb.DiffRequest().setUrn(urn).setType(WEBHOOK_TYPE).setOlds(struct(olds)).setNews(struct(news)),
            (error, response) => (error ? reject(error) : resolve(response)),
          ),
        );
      // The engine configures a provider before any resource operation, and the plugin refuses one before it.
      await webhookCalls(client).configure({});
      const failures = (response: InstanceType<typeof providerPb.CheckResponse>) =>
        response.getFailuresList().map((failure) => failure.getProperty());
      const changes = (response: InstanceType<typeof providerPb.DiffResponse>) => ({
        some: response.getChanges() === providerPb.DiffResponse.DiffChanges.DIFF_SOME,
        diffs: response.getDiffsList(),
        replaces: response.getReplacesList(),
        deleteBeforeReplace: response.getDeletebeforereplace(),
      });

      const webhook = await check("check", { event: "ticket_open", url: "ftp://hooks.example.com/x", extra: 1 });
      expect(failures(webhook)).toEqual(["event", "url"]);
      expect(webhook.getInputs()?.toJavaScript()).toEqual({ event: "ticket_open", url: "ftp://hooks.example.com/x" });
      expect(failures(await check("check", { event: "ticket_opened", url: "https://hooks.example.com/x" }))).toEqual(
        [],
      );
      const config = await check("checkConfig", { baseUrl: "ftp://helpdesk.example.com", maxRetries: "3" });
      expect(failures(config)).toEqual(["baseUrl"]);
      expect(config.getInputs()?.toJavaScript()).toEqual({ baseUrl: "ftp://helpdesk.example.com", maxRetries: "3" });

      const recorded = { event: "ticket_opened", url: "https://hooks.example.com/x", state: "active" };
      expect(
        changes(await diff("diff", recorded, { event: "ticket_opened", url: "https://hooks.example.com/y" })),
      ).toEqual({ some: true, diffs: ["url"], replaces: ["url"], deleteBeforeReplace: false });
      expect(
        changes(await diff("diff", recorded, { event: "ticket_opened", url: "https://hooks.example.com/x" })),
      ).toEqual({ some: false, diffs: [], replaces: [], deleteBeforeReplace: false });
      const olds = { baseUrl: "https://helpdesk.example.com/", maxRetries: 3 };
      expect(
        changes(await diff("diffConfig", olds, { baseUrl: "https://helpdesk.example.com", maxRetries: 5 })),
      ).toEqual({ some: true, diffs: ["maxRetries"], replaces: [], deleteBeforeReplace: false });
      expect(changes(await diff("diffConfig", olds, { baseUrl: "https://other.example.com", maxRetries: 3 }))).toEqual({
        some: true,
        diffs: ["baseUrl"],
        replaces: ["baseUrl"],
        deleteBeforeReplace: false,
      });
      expect(
        changes(await diff("diffConfig", olds, { baseUrl: "https://helpdesk.example.com", maxRetries: 3 })).some,
      ).toBe(false);

      // Every resource operation refuses a type the provider does not have, before anything else.
      const other = new providerPb.CheckRequest()
        .setUrn("urn:pulumi:dev::p::helpdesk:index:Ticket::t")
        .setType("helpdesk:index:Ticket")
        .setNews(struct({}));
      const refused = await new Promise<grpc.ServiceError>((resolve, reject) =>
        client.check(other, (error) => (error ? resolve(error) : reject(new Error("Check accepted a Ticket")))),
      );
      expect(refused.details).toBe(
        `the helpdesk provider has no resource type "helpdesk:index:Ticket"; it offers ${WEBHOOK_TYPE}`,
      );
    });
  });
});
