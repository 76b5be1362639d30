/**
 * The native plugin's port is loopback and unauthenticated, as every Pulumi provider's is (audit L2). What the
 * plugin does about another local process calling it: a resource operation before `Configure` is refused with
 * FAILED_PRECONDITION (the engine configures first; audit N5), while the calls the engine makes before it are served;
 * a second `Configure` with other settings is refused (the engine configures a plugin process once) and the first
 * settings stay, and the engine is warned with the caller's address; the same settings again pass; `Handshake` and
 * `Attach` engine addresses that are not loopback are ignored, so warnings keep going to the engine; and so is the
 * address of another engine while the one the plugin follows still answers (its argument's, or the first to introduce
 * itself), while a single `Attach` to a plugin started by hand is followed. Real plugin
 * process, real gRPC and HTTP on 127.0.0.1: a stand-in engine `Log` service and two help desks that record requests.
 */

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_TYPE } from "../../kernel/names.js";
import { emptyPb, pluginPb, providerPb, structPb } from "../../provider/native/proto.js";
import { waitFor } from "../../scripts/lib/processes.ts";
import { engineGrpc } from "../support/grpc-services.js";
import { call as callPlugin, type RunningPlugin, startPlugin, webhookCalls, webhookUrn } from "../support/plugin.js";

/** A help desk that answers every request 404 (a webhook already gone) and records what it received. */
async function recordingHelpDesk(): Promise<{
  url: string;
  requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  server: Server;
}> {
  const requests: { method: string; path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    res
      .writeHead(404, { "content-type": "application/json" })
      .end(JSON.stringify({ error: { code: "not_found", message: "no such webhook" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

const struct = (properties: Record<string, unknown>) =>
  structPb.Struct.fromJavaScript(properties as Parameters<typeof structPb.Struct.fromJavaScript>[0]);

describe("a local process other than the engine on the plugin's port", () => {
  const ENV_TOKEN = "ENV-FILLED-TOKEN-abc123";
  const ENGINE_TOKEN = "engine-configured-token-0001";
  let plugin: RunningPlugin;
  let engine: grpc.Server;
  let engineAddress: string;
  const logged: string[] = [];
  let helpDesk: Awaited<ReturnType<typeof recordingHelpDesk>>;
  let other: Awaited<ReturnType<typeof recordingHelpDesk>>;

  /** One unary call of the plugin's ResourceProvider service. */
  function call<Req, Res>(
    method: (request: Req, callback: (error: grpc.ServiceError | null, response: Res) => void) => unknown,
    request: Req,
  ): Promise<Res> {
    return new Promise((resolve, reject) =>
      method.call(plugin.client, request, (error, response) => (error ? reject(error) : resolve(response))),
    );
  }
  const configure = (settings: Record<string, unknown>) =>
    call(plugin.client.configure, new providerPb.ConfigureRequest().setArgs(struct(settings)).setAcceptsecrets(true));
  const deleteWebhook = (id: string) =>
    call(
      plugin.client.delete,
      new providerPb.DeleteRequest()
        .setUrn(`urn:pulumi:dev::p::${WEBHOOK_TYPE}::${id}`)
        .setType(WEBHOOK_TYPE)
        .setId(id)
        .setProperties(struct({ event: "ticket_opened", url: "https://hooks.example.com/x" })),
    );

  beforeAll(async () => {
    engine = new grpc.Server();
    engine.addService(engineGrpc.EngineService, {
      log: (request: { request: { getMessage(): string } }, callback: (error: null, response: unknown) => void) => {
        logged.push(request.request.getMessage());
        callback(null, new emptyPb.Empty());
      },
    } as unknown as grpc.UntypedServiceImplementation);
    const port = await new Promise<number>((resolve, reject) =>
      engine.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    engineAddress = `127.0.0.1:${port}`;
    [helpDesk, other] = await Promise.all([recordingHelpDesk(), recordingHelpDesk()]);
    // The environment fills the access token when Configure leaves it unset (config.ts): what the audit's probe stole.
    plugin = await startPlugin({ ...process.env, HELPDESK_ACCESS_TOKEN: ENV_TOKEN });
  });

  afterAll(async () => {
    await plugin?.close();
    engine?.forceShutdown();
    helpDesk?.server.close();
    other?.server.close();
  });

  it("follows a loopback engine address, and ignores Handshake and Attach addresses that are not loopback", async () => {
    await call(plugin.client.handshake, new providerPb.ProviderHandshakeRequest().setEngineAddress(engineAddress));
    for (const address of [
      "192.0.2.1:50051",
      "evil.example:443",
      "[2001:db8::1]:50051",
      "127.0.0.1.evil.example:1",
      "127.0.0.1",
    ]) {
      await call(plugin.client.attach, new pluginPb.PluginAttach().setAddress(address));
      await call(plugin.client.handshake, new providerPb.ProviderHandshakeRequest().setEngineAddress(address));
    }
    await configure({ baseUrl: helpDesk.url, accessToken: ENGINE_TOKEN });
    await deleteWebhook("wh_gone_1");
    // The warning about the webhook already gone reaches the engine's Log service, not an address given later.
    await waitFor(
      "the warning at the engine",
      () => logged.find((line) => line.includes("webhook wh_gone_1 (ticket_opened) was already gone")),
      20_000,
    );
    expect(plugin.stderr()).not.toContain("wh_gone_1");
  });

  it("refuses a second Configure with other settings, clearly; the engine's settings stay, and the same settings again pass", async () => {
    const refused = await configure({ baseUrl: other.url }).then(
      () => undefined,
      (error: grpc.ServiceError) => error,
    );
    expect(refused?.details).toBe(
      "this provider plugin is already configured with other settings; Pulumi configures a plugin process once, so a second Configure with different " +
        "settings did not come from the engine and is refused (the first settings stay). To use other settings, run another provider (a provider resource " +
        "of its own starts its own plugin process).",
    );
    // The engine hears of it, with the caller's address.
    const warning = await waitFor(
      "the refusal's warning at the engine",
      () => logged.find((line) => line.includes("a second Configure with other settings")),
      20_000,
    );
    expect(warning).toMatch(
      /^a second Configure with other settings, from "(ipv4:)?127\.0\.0\.1:\d+", was refused: Pulumi configures a plugin once, so another local process sent it; the first settings stay\.$/,
    );
    await configure({ accessToken: ENGINE_TOKEN, baseUrl: helpDesk.url }); // the same, in another key order
    await deleteWebhook("wh_gone_2");
    expect(other.requests).toEqual([]);
    const deletes = helpDesk.requests.filter((request) => request.method === "DELETE");
    expect(deletes.map((request) => request.path)).toEqual(["/v1/webhooks/wh_gone_1", "/v1/webhooks/wh_gone_2"]);
    for (const request of deletes) expect(request.headers.authorization).toBe(`Bearer ${ENGINE_TOKEN}`);
    expect(JSON.stringify(helpDesk.requests)).not.toContain(ENV_TOKEN);
  });
});

describe("a local process calling the plugin before the engine configures it", () => {
  const ENV_TOKEN = "ENV-FILLED-TOKEN-def456";
  let plugin: RunningPlugin;
  let helpDesk: Awaited<ReturnType<typeof recordingHelpDesk>>;

  beforeAll(async () => {
    helpDesk = await recordingHelpDesk();
    // What an unconfigured plugin would use: the environment fills in the base URL and the access token (config.ts).
    plugin = await startPlugin({ ...process.env, HELPDESK_ACCESS_TOKEN: ENV_TOKEN, HELPDESK_BASE_URL: helpDesk.url });
  });

  afterAll(async () => {
    await plugin?.close();
    helpDesk?.server.close();
  });

  it("refuses Check, Diff, Create, Read, Update and Delete with FAILED_PRECONDITION, sending nothing; serves what the engine calls first; serves all after Configure", async () => {
    const client = plugin.client;
    const urn = webhookUrn("early");
    const inputs = struct({ event: "ticket_opened", url: "https://hooks.example.com/x" });
    const operations = {
      Check: () =>
        callPlugin(
          client.check.bind(client),
          new providerPb.CheckRequest().setUrn(urn).setType(WEBHOOK_TYPE).setNews(inputs),
          providerPb.CheckResponse,
        ),
      Diff: () =>
        callPlugin(
          client.diff.bind(client),
          new providerPb.DiffRequest().setUrn(urn).setType(WEBHOOK_TYPE).setId("wh_1").setOlds(inputs).setNews(inputs),
          providerPb.DiffResponse,
        ),
      Create: () =>
        callPlugin(
          client.create.bind(client),
          new providerPb.CreateRequest().setUrn(urn).setType(WEBHOOK_TYPE).setProperties(inputs),
          providerPb.CreateResponse,
        ),
      Read: () =>
        callPlugin(
          client.read.bind(client),
          new providerPb.ReadRequest().setUrn(urn).setType(WEBHOOK_TYPE).setId("wh_1").setProperties(struct({})),
          providerPb.ReadResponse,
        ),
      Update: () =>
        callPlugin(
          client.update.bind(client),
          new providerPb.UpdateRequest()
            .setUrn(urn)
            .setType(WEBHOOK_TYPE)
            .setId("wh_1")
            .setOlds(inputs)
            .setNews(inputs),
          providerPb.UpdateResponse,
        ),
      Delete: () =>
        callPlugin(
          client.delete.bind(client),
          new providerPb.DeleteRequest().setUrn(urn).setType(WEBHOOK_TYPE).setId("wh_1").setProperties(inputs),
          emptyPb.Empty,
        ),
    };
    for (const [operation, run] of Object.entries(operations)) {
      const refused = await run().then(
        () => undefined,
        (error: grpc.ServiceError) => error,
      );
      expect(refused?.code, operation).toBe(grpc.status.FAILED_PRECONDITION);
      expect(refused?.details).toBe(
        `${operation} refused: this helpdesk provider plugin has not been configured. The Pulumi engine always sends Configure before any resource ` +
          "operation, so this call did not come from the engine; nothing was sent to the help desk.",
      );
    }
    expect(helpDesk.requests).toEqual([]);

    // What the engine calls before Configure (provider_plugin.go, providers/registry.go) is served.
    const providerUrn = "urn:pulumi:dev::p::pulumi:providers:helpdesk::default";
    await callPlugin(
      client.handshake.bind(client),
      new providerPb.ProviderHandshakeRequest(),
      providerPb.ProviderHandshakeResponse,
    );
    await callPlugin(client.getPluginInfo.bind(client), new emptyPb.Empty(), pluginPb.PluginInfo);
    expect(
      (
        await callPlugin(client.getSchema.bind(client), new providerPb.GetSchemaRequest(), providerPb.GetSchemaResponse)
      ).getSchema(),
    ).toContain(WEBHOOK_TYPE);
    const config = struct({ baseUrl: helpDesk.url, accessToken: "engine-token" });
    expect(
      (
        await callPlugin(
          client.checkConfig.bind(client),
          new providerPb.CheckRequest().setUrn(providerUrn).setNews(config),
          providerPb.CheckResponse,
        )
      ).getFailuresList(),
    ).toEqual([]);
    await callPlugin(
      client.diffConfig.bind(client),
      new providerPb.DiffRequest().setUrn(providerUrn).setOlds(config).setNews(config),
      providerPb.DiffResponse,
    );

    // Configured, every operation is served: Check answers, Delete reaches the help desk with the configured token.
    await webhookCalls(client).configure({ baseUrl: helpDesk.url, accessToken: "engine-token" });
    expect((await operations.Check()).getFailuresList()).toEqual([]);
    await operations.Delete();
    expect(helpDesk.requests.map((request) => [request.method, request.path, request.headers.authorization])).toEqual([
      ["DELETE", "/v1/webhooks/wh_1", "Bearer engine-token"],
    ]);
  });
});

/** A stand-in engine: a grpc-js server of the `Engine` service that records each `Log` message. */
async function recordingEngine(): Promise<{ address: string; logged: string[]; server: grpc.Server }> {
  const logged: string[] = [];
  const server = new grpc.Server();
  server.addService(engineGrpc.EngineService, {
    log: (request: { request: { getMessage(): string } }, callback: (error: null, response: unknown) => void) => {
      logged.push(request.request.getMessage());
      callback(null, new emptyPb.Empty());
    },
  } as unknown as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, logged, server };
}

describe("another local engine address on the plugin's port", () => {
  let helpDesk: Awaited<ReturnType<typeof recordingHelpDesk>>;
  const engines: Awaited<ReturnType<typeof recordingEngine>>[] = [];
  const plugins: RunningPlugin[] = [];

  beforeAll(async () => {
    helpDesk = await recordingHelpDesk();
  });

  afterAll(async () => {
    for (const plugin of plugins) await plugin.close();
    for (const engine of engines) engine.server.forceShutdown();
    helpDesk?.server.close();
  });

  /** A plugin (with `args`), configured against the help desk, whose Delete of `id` warns that it was already gone. */
  async function configuredPlugin(
    args: string[],
  ): Promise<{ warnAbout(id: string): Promise<void>; plugin: RunningPlugin }> {
    const plugin = await startPlugin(process.env, args);
    plugins.push(plugin);
    await webhookCalls(plugin.client).configure({ baseUrl: helpDesk.url, accessToken: "engine-token" });
    const warnAbout = (id: string) =>
      callPlugin(
        plugin.client.delete.bind(plugin.client),
        new providerPb.DeleteRequest()
          .setUrn(webhookUrn(id))
          .setType(WEBHOOK_TYPE)
          .setId(id)
          .setProperties(struct({ event: "ticket_opened", url: "https://hooks.example.com/x" })),
        emptyPb.Empty,
      ).then(() => undefined);
    return { warnAbout, plugin };
  }
  const handshake = (plugin: RunningPlugin, address: string) =>
    callPlugin(
      plugin.client.handshake.bind(plugin.client),
      new providerPb.ProviderHandshakeRequest().setEngineAddress(address),
      providerPb.ProviderHandshakeResponse,
    );
  const attach = (plugin: RunningPlugin, address: string) =>
    callPlugin(
      plugin.client.attach.bind(plugin.client),
      new pluginPb.PluginAttach().setAddress(address),
      emptyPb.Empty,
    );
  const warnedAt = (engine: { logged: string[] }, id: string) =>
    waitFor(`the warning about ${id}`, () => engine.logged.find((line) => line.includes(`webhook ${id} `)), 20_000);

  it("keeps the engine that started the plugin: an Attach or Handshake of another live engine takes no warning", async () => {
    const [started, other] = [await recordingEngine(), await recordingEngine()];
    engines.push(started, other);
    const { plugin, warnAbout } = await configuredPlugin([started.address]);
    await attach(plugin, other.address);
    await handshake(plugin, other.address);
    await warnAbout("wh_argument_1");
    await warnedAt(started, "wh_argument_1");
    expect(other.logged).toEqual([]);
  });

  it("follows a single Attach to a plugin started by hand, keeps it while it answers, and takes the next engine once it is gone", async () => {
    const [first, second] = [await recordingEngine(), await recordingEngine()];
    engines.push(first, second);
    const { plugin, warnAbout } = await configuredPlugin([]);
    await attach(plugin, first.address);
    await warnAbout("wh_attach_1");
    await warnedAt(first, "wh_attach_1");
    // Another engine's address while the first answers: ignored.
    await handshake(plugin, second.address);
    await attach(plugin, second.address);
    await warnAbout("wh_attach_2");
    await warnedAt(first, "wh_attach_2");
    expect(second.logged).toEqual([]);
    // The first engine's run is over (a plugin started by hand serves one run after another): the next one is followed.
    first.server.forceShutdown();
    await handshake(plugin, second.address);
    await warnAbout("wh_attach_3");
    await warnedAt(second, "wh_attach_3");
    expect(first.logged.some((line) => line.includes("wh_attach_3"))).toBe(false);
  });
});
