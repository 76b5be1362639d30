/**
 * Test support: the native provider plugin as the engine runs it. Starts `plugin/pulumi-resource-helpdesk` (the
 * launcher of the built dist/, so build first), reads the port it prints, and connects a gRPC `ResourceProvider`
 * client to it on 127.0.0.1.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as grpc from "@grpc/grpc-js";
import { providerGrpc } from "../../provider/native/proto.js";
import { repoRoot } from "./package.js";

/** A running plugin process and a client of its port. */
export interface RunningPlugin {
  client: InstanceType<typeof providerGrpc.ResourceProviderClient>;
  process: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Closes the client and stops the process (SIGTERM), waiting for its exit. */
  close(): Promise<void>;
}

/**
 * @param env the plugin's environment (default: this process's)
 * @throws Error when the plugin exits before printing its port
 */
export async function startPlugin(env: NodeJS.ProcessEnv = process.env): Promise<RunningPlugin> {
  const plugin = spawn(`${repoRoot}plugin/pulumi-resource-helpdesk`, [], { stdio: ["ignore", "pipe", "pipe"], env });
  let stderr = "";
  plugin.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => plugin.once("exit", () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    let out = "";
    plugin.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    plugin.once("exit", (code) => reject(new Error(`the plugin exited with ${code} before printing its port:\n${stderr}`)));
  });
  if (!/^\d+$/.test(port)) throw new Error(`the plugin printed ${JSON.stringify(port)}, not a port`);
  const client = new providerGrpc.ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  return {
    client,
    process: plugin,
    stderr: () => stderr,
    close: async () => {
      client.close();
      if (plugin.exitCode === null && plugin.signalCode === null) plugin.kill();
      await exited;
    },
  };
}
