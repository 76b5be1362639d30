/**
 * The gRPC server of Pulumi's `pulumirpc.ResourceProvider` service (pulumi/pulumi `proto/pulumi/provider.proto`,
 * v3.259) for the `helpdesk` package, on the unary gRPC server of `node:http2` (`rpc/unary-server.ts`, which
 * says why not grpc-js) with the messages shipped in `@pulumi/pulumi/proto/` (`./proto.ts`).
 *
 * Why not `@pulumi/pulumi/provider`'s `main()`: its server responds with `Configure` without handing the provider its
 * config (`configure()` in `provider/server.js` only sets the protocol flags), and `CheckConfig`/`DiffConfig` with
 * UNIMPLEMENTED; a provider whose credentials are its config cannot be built on it. So this server is our own, and
 * every resource operation is the provider core's (`./webhook.ts` over `provider/core/webhooks.ts`).
 *
 * Methods: Handshake, GetPluginInfo, GetSchema, CheckConfig, DiffConfig, Configure, Check, Diff, Create, Read,
 * Update (adoption of an import only), Delete, Cancel, Attach, GetMapping, GetMappings. Parameterize, Invoke, Call,
 * Construct and List are not served: the server responds UNIMPLEMENTED, which is what the v3.259 engine expects of a
 * provider without parameterization, functions, methods, components or listing.
 *
 * The port is loopback and unauthenticated, as every Pulumi provider's is, so any local process can call it: a resource
 * operation before `Configure` is refused (the engine configures first: {@link notConfiguredText}), a second `Configure`
 * with other inputs is refused (the engine configures once), and a `Handshake`/`Attach` engine address that is not
 * loopback, or that would replace a live engine, is ignored (`engine-log.ts`). The server's bounds (request sizes,
 * deadlines, streams) are `rpc/unary-server.ts`'s; a request is decoded with every length checked (`rpc/protobuf.ts`).
 *
 * Every error message passes through the redaction registry (`auth/redact.ts` `forPerson`), which knows the provider's
 * credentials from `Configure` on.
 */
import { forPerson } from "../../auth/redact.js";
import { messageOf } from "../../kernel/errors.js";
import { PULUMI_PACKAGE, WEBHOOK_TYPE } from "../../kernel/names.js";
import { packageVersion } from "../../kernel/package-version.js";
import { decodeMessage } from "../../rpc/protobuf.js";
import { serveUnary, type UnaryCall, type UnaryMethod, type UnaryServer } from "../../rpc/unary-server.js";
import { GRPC_STATUS, GrpcStatusError, PULUMI_MAX_MESSAGE_BYTES } from "../../rpc/wire.js";
import { RefreshTally } from "../core/refresh.js";
import type { Target } from "../core/target.js";
import { checkProviderConfig, diffProviderConfig, providerTarget } from "./config.js";
import { engineIntroduced, logToEngine, logWarning, withResource } from "./engine-log.js";
import { containsUnknown } from "./properties.js";
import {
  type ConfigureRequest,
  checkResponse,
  diffResponse,
  emptyPb,
  PROVIDER_PATHS,
  PROVIDER_REQUESTS,
  type PropertyMap,
  type ProviderMethod,
  type ProviderRequest,
  type ProviderResponse,
  pluginPb,
  providerPb,
  toProperties,
  toStruct,
} from "./proto.js";
import { schemaJson } from "./schema.js";
import {
  checkWebhook,
  createWebhook,
  deleteWebhook,
  diffWebhook,
  IMPORT_MARKER,
  readWebhook,
  updateWebhook,
} from "./webhook.js";

/**
 * The configuration of this provider instance (one plugin process serves one provider resource): its inputs from
 * `Configure` (`{}` before it, or when they were unknown), resolved into a {@link Target} on first use and then kept.
 */
interface Configured {
  inputs: PropertyMap;
  target: Target | undefined;
  /** The provider resource's URN and name from `Configure` (`default_0_2_0` for the default provider; empty if not sent). */
  urn: string;
  name: string;
}

/** How the refresh warning names a provider instance: its resource name, or "the default provider". */
function providerTitle(name: string): string {
  return name === "" || name.startsWith("default")
    ? `the default ${PULUMI_PACKAGE} provider`
    : `the ${PULUMI_PACKAGE} provider ${JSON.stringify(name)}`;
}

/** One method of the service: the request decoded, the response to encode. */
type Handler<Method extends ProviderMethod> = (
  request: ProviderRequest<Method>,
  call: UnaryCall,
) => Promise<ProviderResponse<Method>>;

/**
 * Wraps an async handler as a method of the unary server: decodes the request with its generated class, runs the
 * handler under the request's URN (`./engine-log.ts`) and encodes its response. A thrown error keeps its status (a
 * {@link GrpcStatusError}, else UNKNOWN) and its message is redacted (the engine shows it to the person running
 * Pulumi).
 *
 * @param method the method's name, for its request class ({@link PROVIDER_REQUESTS})
 * @param urnOf the URN a request names, empty for provider-level calls
 */
function unary<Method extends ProviderMethod>(
  method: Method,
  urnOf: (request: ProviderRequest<Method>) => string,
  handler: Handler<Method>,
): UnaryMethod {
  const requestClass = PROVIDER_REQUESTS[method];
  return async (bytes, call) => {
    try {
      const request = decodeMessage(requestClass, bytes);
      const response = await withResource(urnOf(request), () => handler(request, call));
      return (response as { serializeBinary(): Uint8Array }).serializeBinary();
    } catch (error) {
      const code = error instanceof GrpcStatusError ? error.code : GRPC_STATUS.UNKNOWN;
      throw new GrpcStatusError(code, forPerson(messageOf(error)));
    }
  };
}

/** No URN: provider-level calls. */
const noUrn = (): string => "";
/** The URN a request names: resource operations, and CheckConfig and DiffConfig (the provider resource's). */
const requestUrn = (request: { getUrn(): string }): string => request.getUrn();

/** Refuses a resource type this provider does not have. */
function assertWebhookType(type: string, urn: string): void {
  const token = type || urn.split("::")[2]?.split("$").pop() || "";
  if (token !== WEBHOOK_TYPE)
    throw new Error(
      `the ${PULUMI_PACKAGE} provider has no resource type ${JSON.stringify(token)}; it offers ${WEBHOOK_TYPE}`,
    );
}

/** The package's prefix of a key in the deprecated `variables` map: `helpdesk:config:` or `helpdesk:`. */
const VARIABLE_PREFIX = new RegExp(`^${PULUMI_PACKAGE}:(config:)?`);

/** The resource operations of the protocol, as {@link notConfiguredText} names them. */
type WebhookOperation = "Check" | "Diff" | "Create" | "Read" | "Update" | "Delete";

/**
 * Why a resource operation before `Configure` is refused (gRPC FAILED_PRECONDITION). The v3.259 engine sends none:
 * `pkg/resource/plugin/provider_plugin.go` makes Check, Diff, Create, Read, Update and Delete wait for the plugin's
 * configuration (`getPluginConfig`, resolved when `Configure` returns), and calls none of them on the plugin when the
 * configuration is unknown (preview). Only `Handshake`, `GetPluginInfo`, `GetSchema`, `CheckConfig`, `DiffConfig`,
 * `Attach`, `Cancel` and `GetMapping(s)` come before it. So such a call came from another local process on the
 * unauthenticated port, and would otherwise run with the credentials the environment fills in
 * (`HELPDESK_ACCESS_TOKEN`, ...) against a URL of its choosing.
 *
 * @param operation the refused operation
 * @returns the refusal's message
 * @home which calls the native plugin serves before `Configure` (none of the resource operations)
 */
function notConfiguredText(operation: WebhookOperation): string {
  return (
    `${operation} refused: this ${PULUMI_PACKAGE} provider plugin has not been configured. The Pulumi engine always sends Configure before any ` +
    "resource operation, so this call did not come from the engine; nothing was sent to the help desk."
  );
}

/** The resource operations' methods, by their names in the generated declarations. */
type WebhookMethod = "check" | "diff" | "create" | "read" | "update" | "delete";

/** A resource operation's request. */
type WebhookRequest = ProviderRequest<WebhookMethod>;

/**
 * A resource operation (Check, Diff, Create, Read, Update, Delete) as a method: {@link unary} under the request's URN,
 * after refusing a call before `Configure` ({@link notConfiguredText}, FAILED_PRECONDITION) and any resource type but
 * the webhook.
 *
 * @param method the operation's method; @param configured whether `Configure` has returned
 */
function webhookOperation<Method extends WebhookMethod>(
  method: Method,
  configured: () => boolean,
  handler: Handler<Method>,
): UnaryMethod {
  const operation = OPERATION_NAMES[method];
  // Every resource operation's request names its resource (the compiler cannot see it through the generic `Method`).
  const named = (request: ProviderRequest<Method>): WebhookRequest => request as WebhookRequest;
  return unary(
    method,
    (request) => named(request).getUrn(),
    async (request, call) => {
      if (!configured()) throw new GrpcStatusError(GRPC_STATUS.FAILED_PRECONDITION, notConfiguredText(operation));
      assertWebhookType(named(request).getType(), named(request).getUrn());
      return handler(request, call);
    },
  );
}

/** Each resource operation's name in the protocol, as {@link notConfiguredText} names it. */
const OPERATION_NAMES: Readonly<Record<WebhookMethod, WebhookOperation>> = {
  check: "Check",
  diff: "Diff",
  create: "Create",
  read: "Read",
  update: "Update",
  delete: "Delete",
};

/**
 * The provider config that `Configure` received: `args` (the inputs, secrets wrapped), or, from an engine that sends
 * only the deprecated `variables` map (`helpdesk:config:<name>` → string), that.
 */
function configureInputs(request: ConfigureRequest): PropertyMap {
  const args = request.getArgs();
  if (args) return toProperties(args);
  const inputs: PropertyMap = {};
  request.getVariablesMap().forEach((value: string, key: string) => {
    const name = key.replace(VARIABLE_PREFIX, "");
    inputs[name] = value;
  });
  return inputs;
}

/**
 * Why a second `Configure` with other inputs is refused. The engine configures a plugin process once (pulumi/pulumi
 * v3.259 `pkg/resource/deploy/providers/registry.go`: a provider is loaded, configured and registered, "only configure
 * them once"; `pkg/resource/plugin/provider_plugin.go` `Configure` fulfils a one-time promise, so a second call on the
 * same provider would panic the engine). A different second call therefore comes from another local process that
 * found the plugin's unauthenticated loopback port, and would point this process's credentials (the ones the engine
 * configured, or the environment fills in) at a URL of its choice. The same inputs again change nothing and pass.
 */
const RECONFIGURE_REFUSED =
  "this provider plugin is already configured with other settings; Pulumi configures a plugin process once, so a " +
  "second Configure with different settings did not come from the engine and is refused (the first settings stay). " +
  "To use other settings, run another provider (a provider resource of its own starts its own plugin process).";

/**
 * The engine warning about a refused second `Configure`: who sent it (its address as the server gives it, e.g.
 * `127.0.0.1:51234`), so the person running Pulumi can find the process.
 *
 * @param peer the caller's address
 */
function reconfigureWarning(peer: string): string {
  return `a second Configure with other settings, from ${JSON.stringify(peer)}, was refused: Pulumi configures a plugin once, so another local process sent it; the first settings stay.`;
}

/** JSON of a value with every object's keys sorted: the same inputs in any key order give the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}

/**
 * Builds the `ResourceProvider` service of one provider instance: each served method by its path.
 *
 * @param engineAddress the engine address given on the command line, if any (for warnings, see `engine-log.ts`)
 * @returns the methods to serve with `serveUnary` (`rpc/unary-server.ts`), by path
 */
export function resourceProviderService(engineAddress: string | undefined): ReadonlyMap<string, UnaryMethod> {
  logToEngine(engineAddress);
  let configured: Configured = { inputs: {}, target: undefined, urn: "", name: "" };
  // Refresh keeps every webhook as recorded; the count is warned about once, when the engine ends the run (Cancel).
  const refreshTally = new RefreshTally();
  // The first Configure's inputs (canonical JSON); see RECONFIGURE_REFUSED.
  let configuredWith: string | undefined;
  // Resolved on first use: a bad value the environment fills in fails the operation that needs it, not Configure.
  const target = (): Target => (configured.target ??= providerTarget(configured.inputs));
  const isConfigured = (): boolean => configuredWith !== undefined;

  const methods: { readonly [Method in ProviderMethod]: UnaryMethod } = {
    handshake: unary("handshake", noUrn, async (request) => {
      await engineIntroduced(request.getEngineAddress());
      const response = new providerPb.ProviderHandshakeResponse();
      response.setAcceptSecrets(true);
      response.setAcceptResources(true);
      response.setAcceptOutputs(false);
      response.setSupportsAutonamingConfiguration(false);
      response.setAcceptsByteString(false);
      return response;
    }),

    attach: unary("attach", noUrn, async (request) => {
      await engineIntroduced(request.getAddress());
      return new emptyPb.Empty();
    }),

    getPluginInfo: unary("getPluginInfo", noUrn, async () => new pluginPb.PluginInfo().setVersion(packageVersion())),

    getSchema: unary("getSchema", noUrn, async (request) => {
      if (request.getVersion() !== 0) throw new Error(`unsupported schema version ${request.getVersion()}`);
      return new providerPb.GetSchemaResponse().setSchema(schemaJson());
    }),

    getMapping: unary("getMapping", noUrn, async () => new providerPb.GetMappingResponse()),
    getMappings: unary("getMappings", noUrn, async () => new providerPb.GetMappingsResponse()),

    // The engine calls Cancel when it releases the run's plugins (host.ReleaseContext), and on a cancelled run: the
    // end of this instance's Reads, when the refresh warning's count is known (provider/core/refresh.ts).
    cancel: unary("cancel", noUrn, async () => {
      const warning = refreshTally.take(providerTitle(configured.name));
      if (warning) await logWarning(forPerson(warning), configured.urn);
      return new emptyPb.Empty();
    }),

    checkConfig: unary("checkConfig", requestUrn, async (request) =>
      checkResponse(checkProviderConfig(toProperties(request.getNews()))),
    ),

    diffConfig: unary("diffConfig", requestUrn, async (request) =>
      diffResponse(diffProviderConfig(toProperties(request.getOlds()), toProperties(request.getNews()))),
    ),

    // A refused Configure is also warned about at the engine, naming the caller's address.
    configure: unary("configure", noUrn, async (request, call) => {
      const inputs = configureInputs(request);
      const identity = canonicalJson(inputs);
      if (configuredWith !== undefined && identity !== configuredWith) {
        await logWarning(reconfigureWarning(call.peer), configured.urn);
        throw new Error(RECONFIGURE_REFUSED);
      }
      configuredWith = identity;
      // The engine does not configure a provider whose inputs are unknown (preview); guard anyway.
      configured = {
        inputs: containsUnknown(inputs) ? {} : inputs,
        target: undefined,
        urn: request.getUrn() ?? "",
        name: request.getName() ?? "",
      };
      const response = new providerPb.ConfigureResponse();
      response.setAcceptsecrets(true);
      response.setAcceptresources(true);
      response.setSupportspreview(true);
      response.setAcceptoutputs(false);
      return response;
    }),

    check: webhookOperation("check", isConfigured, async (request) =>
      checkResponse(checkWebhook(toProperties(request.getNews()))),
    ),

    diff: webhookOperation("diff", isConfigured, async (request) =>
      diffResponse(diffWebhook(toProperties(request.getOlds()), toProperties(request.getNews()))),
    ),

    create: webhookOperation("create", isConfigured, async (request) => {
      const { id, outputs } = await createWebhook(target, toProperties(request.getProperties()), request.getPreview());
      return new providerPb.CreateResponse().setId(id).setProperties(toStruct(outputs));
    }),

    read: webhookOperation("read", isConfigured, async (request) => {
      const inputs = request.getInputs();
      const outcome = readWebhook(
        request.getId(),
        toProperties(request.getProperties()),
        inputs ? toProperties(inputs) : undefined,
      );
      if (!(IMPORT_MARKER in outcome.properties)) refreshTally.keep();
      const response = new providerPb.ReadResponse().setId(outcome.id).setProperties(toStruct(outcome.properties));
      if (outcome.inputs) response.setInputs(toStruct(outcome.inputs));
      return response;
    }),

    update: webhookOperation("update", isConfigured, async (request) => {
      const outputs = updateWebhook(toProperties(request.getOlds()), toProperties(request.getNews()));
      return new providerPb.UpdateResponse().setProperties(toStruct(outputs));
    }),

    delete: webhookOperation("delete", isConfigured, async (request) => {
      await deleteWebhook(target, request.getId(), toProperties(request.getProperties()));
      return new emptyPb.Empty();
    }),
  };
  const paths = Object.keys(PROVIDER_PATHS) as ProviderMethod[];
  return new Map(paths.map((method) => [PROVIDER_PATHS[method], methods[method]]));
}

/**
 * The methods whose request may be larger than gRPC's 4 MiB default, up to Pulumi's 400 MiB
 * (`rpc/wire.ts` PULUMI_MAX_MESSAGE_BYTES): the ones that carry a provider's config or a resource's state, which a
 * state with many properties can make large, as Pulumi's own servers allow. Every other method's request is a name, a
 * version or an address, and keeps grpc-js's 4 MiB: a local caller cannot make the plugin take in more for nothing.
 */
const LARGE_REQUESTS: readonly ProviderMethod[] = [
  "checkConfig",
  "diffConfig",
  "configure",
  "check",
  "diff",
  "create",
  "read",
  "update",
  "delete",
];

/**
 * Starts the server on 127.0.0.1 at a free port.
 *
 * @param engineAddress the engine's address (the plugin's argument), or undefined
 * @returns the port (the plugin prints it on stdout, as Pulumi plugins do) and the server
 * @throws Error when no port can be bound
 */
export function serve(engineAddress: string | undefined): Promise<UnaryServer> {
  return serveUnary(resourceProviderService(engineAddress), {
    maxRequestBytes: new Map(LARGE_REQUESTS.map((method) => [PROVIDER_PATHS[method], PULUMI_MAX_MESSAGE_BYTES])),
  });
}
