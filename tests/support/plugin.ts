/**
 * Test support: the real native provider plugin (`plugin/pulumi-resource-helpdesk`, which runs the built
 * `dist/bin/pulumi-resource-helpdesk.js`) as a child process, and a gRPC client of it, the way the Pulumi engine talks to it:
 * the plugin prints its port on stdout, then serves `pulumirpc.ResourceProvider` on 127.0.0.1.
 */

import type { ChildProcess } from "node:child_process";
import * as grpc from "@grpc/grpc-js";
import { WEBHOOK_TYPE } from "../../kernel/names.js";
import { required } from "../../kernel/required.js";
import { emptyPb, providerPb, structPb } from "../../provider/native/proto.js";
import { peakRssMiB, startProcess } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { providerGrpc } from "./grpc-services.js";

/** A gRPC client of the plugin's `ResourceProvider` service. */
export type ProviderClient = InstanceType<typeof providerGrpc.ResourceProviderClient>;

/** A running plugin. */
export interface RunningPlugin {
  /** The plugin process (the launcher `exec`s Node.js, so this is the Node.js process that serves). */
  process: ChildProcess;
  /** A client connected to it. */
  client: ProviderClient;
  /** The process's peak resident memory so far (`VmHWM` of `/proc/<pid>/status`), in MiB. */
  peakRssMiB(): number;
  /** Whether the process is still running. */
  alive(): boolean;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Closes the client and stops the process (SIGTERM), waiting for its exit (idempotent). */
  close(): Promise<void>;
}

/**
 * Starts the plugin and connects a client to the port it prints.
 *
 * @param env the plugin's environment (default: this process's, which the test sandbox has pointed at its own HOME)
 * @param args its arguments (default none: a plugin started by hand; the engine gives its address)
 * @throws Error when the plugin exits before printing a port
 */
export async function startPlugin(
  env: NodeJS.ProcessEnv = process.env,
  args: readonly string[] = [],
): Promise<RunningPlugin> {
  const started = startProcess(`${repoRoot}plugin/pulumi-resource-helpdesk`, args, { env });
  const child = started.child;
  const [, printed = ""] = await started.waitFor("stdout", /^(.*)\n/, "the plugin's port");
  const port = printed.trim();
  if (!/^\d+$/.test(port)) throw new Error(`the plugin printed ${JSON.stringify(port)}, not a port`);
  const client = new providerGrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return {
    process: child,
    client,
    peakRssMiB: () => peakRssMiB(required(child.pid, "the plugin's pid")),
    alive: () => child.exitCode === null && child.signalCode === null,
    stderr: started.stderr,
    close: async () => {
      client.close();
      await started.stop();
    },
  };
}

/** A protobuf `Struct` of plain values. */
export function struct(properties: Record<string, unknown>): InstanceType<typeof structPb.Struct> {
  return structPb.Struct.fromJavaScript(properties as Parameters<typeof structPb.Struct.fromJavaScript>[0]);
}

/** A message class of the protocol, e.g. `providerPb.CreateResponse`. */
type Message<T> = abstract new (...args: never[]) => T;

/**
 * Calls one unary method and settles with its response or its error.
 *
 * @param method the bound client method, e.g. `client.create.bind(client)`
 * @param request the request message
 * @param _answer the response's message class, which names the response's type
 */
export function call<Res>(
  method: (request: never, callback: (error: grpc.ServiceError | null, response: Res) => void) => unknown,
  request: unknown,
  _answer: Message<Res>,
): Promise<Res> {
  const send = method as (
    request: unknown,
    callback: (error: grpc.ServiceError | null, response: Res) => void,
  ) => unknown;
  return new Promise<Res>((resolve, reject) =>
    send(request, (error, response) => (error ? reject(error) : resolve(response))),
  );
}

/** The URN of a webhook named `name` in a stack `dev` of project `p`. */
export function webhookUrn(name: string): string {
  return `urn:pulumi:dev::p::${WEBHOOK_TYPE}::${name}`;
}

/**
 * The plugin's operations on webhooks, as the engine sends them during `pulumi up`, `import` and `destroy`.
 *
 * @param client a client of the plugin
 */
export function webhookCalls(client: ProviderClient) {
  return {
    /** `Configure` with the provider inputs (bare setting names: `baseUrl`, `accessToken`, ...). */
    configure: (args: Record<string, unknown>) =>
      call(
        client.configure.bind(client),
        new providerPb.ConfigureRequest().setArgs(struct(args)),
        providerPb.ConfigureResponse,
      ),
    /** `Create` outside preview. */
    create: (properties: Record<string, unknown>) =>
      call(
        client.create.bind(client),
        new providerPb.CreateRequest().setUrn(webhookUrn("w")).setType(WEBHOOK_TYPE).setProperties(struct(properties)),
        providerPb.CreateResponse,
      ),
    /** `Read` as the engine sends it for an import: the id alone. */
    importRead: (id: string) =>
      call(
        client.read.bind(client),
        new providerPb.ReadRequest()
          .setId(id)
          .setUrn(webhookUrn("adopted"))
          .setType(WEBHOOK_TYPE)
          .setProperties(struct({})),
        providerPb.ReadResponse,
      ),
    /** `Delete` of a recorded webhook. */
    delete: (id: string, properties: Record<string, unknown>) =>
      call(
        client.delete.bind(client),
        new providerPb.DeleteRequest()
          .setId(id)
          .setUrn(webhookUrn("w"))
          .setType(WEBHOOK_TYPE)
          .setProperties(struct(properties)),
        emptyPb.Empty,
      ),
  };
}
