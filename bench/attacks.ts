/**
 * The security review's attacks on the hand-written gRPC (audit M1, L1, L2 of d2a89db), rerun against the built plugin
 * and analyzer as real processes on 127.0.0.1, with what each costs them: the plugin's peak resident memory (`VmHWM`,
 * /proc, Linux) and how long a probe call waits. Goals (issue 43): the plugin under 100 MiB in the first two, a probe
 * answered within 1 s in the last. Printed, never asserted: tests/rpc/attacks.test.ts asserts the behaviour.
 *
 * - M1, an endless `Log` answer: a stand-in engine, whose address the plugin was started with, answers `Log` with a
 *   body declaring 4 GiB and never ending; two different `Configure`s make the plugin warn it (the refusal's warning).
 * - L2, five streams to `Configure` each declaring 4 GiB and sending up to 300 MiB (audit `mem.mjs provider 5 300`);
 *   and, for comparison, five declaring 300 MiB each, within `Configure`'s 400 MiB, which the budget of requests in
 *   flight takes one at a time.
 * - L1, the 11-byte request `0a ff ff ff ff 0f` to the plugin's `Configure` and the analyzer's `Analyze`, and a probe
 *   (`GetPluginInfo`) sent right after it.
 *
 * Each attack gets a fresh process (the plugin through its npm launcher, the analyzer as `dist/bin/release.js`), so
 * one's peak does not carry into the next. Run alone: `node bench/attacks.ts` (after `. scripts/lib/env.sh` and
 * `npm run build`); `npm run bench` runs it last and writes bench-results/attacks.json. Runs with Node's type
 * stripping: erasable TypeScript only; project code comes from the build (dist/).
 */
import { connect, createServer, type ServerHttp2Stream } from "node:http2";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ANALYZER_EXECUTABLE, PLUGIN_EXECUTABLE } from "../dist/kernel/names.js";
import { required } from "../dist/kernel/required.js";
import { ANALYZER_PATHS } from "../dist/policy/proto.js";
import { PROVIDER_PATHS, providerPb, structPb } from "../dist/provider/native/proto.js";
import { unaryClient } from "../dist/rpc/unary-client.js";
import { GrpcStatusError } from "../dist/rpc/wire.js";
import { type RunningProcess, startProcess } from "../scripts/lib/processes.ts";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { readProc } from "./memory.ts";

/** One attack's outcome. */
export interface AttackResult {
  /** What was done. */
  attack: string;
  /** What the process answered, in words. */
  outcome: string;
  /** The attacked process's peak resident memory before the attack and after it, in MiB. */
  peakMiBBefore: number;
  peakMiBAfter: number;
  /** How long the attacked call, or the probe after it, took to be answered, in milliseconds. */
  answeredMs: number;
  /** The issue's goal for this attack, in words. */
  goal: string;
}

const MiB = 1024 * 1024;

/** A process's peak resident memory so far, in MiB (NaN once it is gone). */
function peakMiB(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readProc(pid, "status") ?? "");
  return hwm ? Number(hwm[1]) / 1024 : Number.NaN;
}

/** Starts the built plugin (its launcher) or analyzer with `args`; resolves with it and its address once it serves. */
async function start(
  root: string,
  which: "plugin" | "analyzer",
  args: string[],
): Promise<{ run: RunningProcess; address: string; pid: number }> {
  const run =
    which === "plugin"
      ? startProcess(join(root, "plugin", PLUGIN_EXECUTABLE), args)
      : startProcess(process.execPath, [join(root, "dist/bin/release.js"), ANALYZER_EXECUTABLE, ...args]);
  const port = (await run.waitFor("stdout", /^(\d+)\n/, `the ${which}'s port`))[1];
  return { run, address: `127.0.0.1:${port}`, pid: required(run.child.pid, `the ${which}'s pid`) };
}

/** A call's status in words: `OK`, or the gRPC code's number and the message's start. */
async function settled(promise: Promise<Uint8Array>): Promise<string> {
  try {
    await promise;
    return "OK";
  } catch (error) {
    return error instanceof GrpcStatusError ? `status ${error.code} (${error.message.slice(0, 60)})` : String(error);
  }
}

/**
 * A stand-in engine on 127.0.0.1: the health check gets UNIMPLEMENTED (it is there); `Log` gets a body declaring 4 GiB
 * that never ends, of which it counts what the plugin took in.
 */
async function endlessEngine(): Promise<{ address: string; flushed(): number; close(): void }> {
  let flushed = 0;
  const server = createServer();
  server.on("stream", (stream: ServerHttp2Stream, headers) => {
    stream.on("error", () => undefined);
    stream.resume();
    if (headers[":path"] !== "/pulumirpc.Engine/Log") {
      stream.respond(
        { ":status": 200, "content-type": "application/grpc+proto", "grpc-status": "12" },
        { endStream: true },
      );
      return;
    }
    stream.respond({ ":status": 200, "content-type": "application/grpc+proto" });
    const chunk = Buffer.alloc(MiB, 0x61);
    let first = true;
    const pump = (): void => {
      while (!stream.destroyed && !stream.closed) {
        const bytes = first ? Buffer.concat([Buffer.from([0, 0xff, 0xff, 0xff, 0xf0]), chunk]) : chunk;
        first = false;
        const more = stream.write(bytes, (error) => {
          if (!error) flushed += bytes.length;
        });
        if (!more) return void stream.once("drain", pump);
      }
    };
    pump();
  });
  const port = await new Promise<number>((done) =>
    server.listen(0, "127.0.0.1", () => done((server.address() as { port: number }).port)),
  );
  return { address: `127.0.0.1:${port}`, flushed: () => flushed, close: () => server.close() };
}

/** An encoded `ConfigureRequest` of a base URL. */
function configureRequest(baseUrl: string): Uint8Array {
  const args = structPb.Struct.fromJavaScript({ baseUrl, accessToken: "bench-token" });
  return new providerPb.ConfigureRequest().setArgs(args).setAcceptsecrets(true).serializeBinary();
}

/** M1: the plugin warns an engine that answers `Log` with an endless body. */
async function endlessLog(root: string): Promise<AttackResult> {
  const engine = await endlessEngine();
  const plugin = await start(root, "plugin", [engine.address]);
  const client = unaryClient(plugin.address);
  try {
    await client.call(PROVIDER_PATHS.configure, configureRequest("https://a.example.com"), 10_000);
    const before = peakMiB(plugin.pid);
    const began = performance.now();
    const outcome = await settled(
      client.call(PROVIDER_PATHS.configure, configureRequest("https://b.example.com"), 60_000),
    );
    const answeredMs = performance.now() - began;
    return {
      attack: "M1: Log answered with a body declaring 4 GiB, never ending",
      outcome: `the second Configure: ${outcome.split(" (")[0]} (refused); the plugin took in ${(engine.flushed() / MiB).toFixed(1)} MiB of the answer`,
      peakMiBBefore: before,
      peakMiBAfter: peakMiB(plugin.pid),
      answeredMs,
      goal: "plugin < 100 MiB",
    };
  } finally {
    client.close();
    await plugin.run.stop("SIGKILL");
    engine.close();
  }
}

/**
 * L2: `streams` streams to the plugin's `Configure` at once, each declaring `declared` bytes and sending up to `send`
 * (1 MiB chunks, as fast as flow control lets it), until the plugin answers or closes it.
 */
async function manyStreams(root: string, streams: number, declared: number, send: number): Promise<AttackResult> {
  const plugin = await start(root, "plugin", []);
  const session = connect(`http://${plugin.address}`);
  session.on("error", () => undefined);
  try {
    const before = peakMiB(plugin.pid);
    const began = performance.now();
    const chunk = Buffer.alloc(MiB);
    const outcomes = await Promise.all(
      Array.from({ length: streams }, () => {
        const stream = session.request({
          ":method": "POST",
          ":path": PROVIDER_PATHS.configure,
          "content-type": "application/grpc+proto",
        });
        stream.on("error", () => undefined);
        let status = "none";
        stream.on("response", (headers) => {
          status = String(headers["grpc-status"] ?? "none");
        });
        stream.on("trailers", (trailers) => {
          status = String(trailers["grpc-status"] ?? status);
        });
        stream.resume();
        let sent = 0;
        const prefix = Buffer.alloc(5);
        prefix.writeUInt32BE(Math.min(declared, 0xffffffff), 1);
        const pump = (): void => {
          while (!stream.destroyed && !stream.closed && sent < send) {
            const bytes = sent === 0 ? Buffer.concat([prefix, chunk]) : chunk;
            sent += chunk.length;
            if (sent >= send) stream.end(bytes);
            else if (!stream.write(bytes)) return void stream.once("drain", pump);
          }
        };
        pump();
        return new Promise<{ status: string; sentMiB: number }>((done) =>
          stream.on("close", () => done({ status, sentMiB: sent / MiB })),
        );
      }),
    );
    const answeredMs = performance.now() - began;
    const statuses = new Map<string, number>();
    for (const { status } of outcomes) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const sent = outcomes.reduce((sum, { sentMiB }) => sum + sentMiB, 0);
    return {
      attack: `L2: ${streams} streams to Configure declaring ${declared >= 0xffffffff ? "4 GiB" : `${declared / MiB} MiB`} each, sending up to ${send / MiB} MiB`,
      outcome: `grpc-status ${[...statuses].map(([status, count]) => `${status} x${count}`).join(", ")}; ${sent.toFixed(0)} MiB handed to the socket`,
      peakMiBBefore: before,
      peakMiBAfter: peakMiB(plugin.pid),
      answeredMs,
      goal: declared >= 0xffffffff ? "plugin < 100 MiB" : "(comparison: within the method's limit)",
    };
  } finally {
    session.destroy();
    await plugin.run.stop("SIGKILL");
  }
}

/** L1: the 11-byte request to `path` of the plugin or the analyzer, then a probe on the same connection. */
async function elevenBytes(root: string, which: "plugin" | "analyzer"): Promise<AttackResult> {
  const engine = await endlessEngine();
  const attacked = await start(root, which, which === "analyzer" ? [engine.address, "."] : []);
  const client = unaryClient(attacked.address);
  const path = which === "plugin" ? PROVIDER_PATHS.configure : ANALYZER_PATHS.analyze;
  const probe = which === "plugin" ? PROVIDER_PATHS.getPluginInfo : ANALYZER_PATHS.getPluginInfo;
  try {
    await client.call(probe, new Uint8Array(0), 10_000);
    const before = peakMiB(attacked.pid);
    const attack = settled(client.call(path, Buffer.from("0affffffff0f", "hex"), 120_000));
    const began = performance.now();
    const probed = await settled(client.call(probe, new Uint8Array(0), 120_000));
    const answeredMs = performance.now() - began;
    return {
      attack: `L1: 0a ff ff ff ff 0f to the ${which}'s ${path.split("/").pop()}, then a probe`,
      outcome: `${(await attack).slice(0, 60)}; probe ${probed}`,
      peakMiBBefore: before,
      peakMiBAfter: peakMiB(attacked.pid),
      answeredMs,
      goal: "probe answered < 1000 ms",
    };
  } finally {
    client.close();
    await attacked.run.stop("SIGKILL");
    engine.close();
  }
}

/**
 * Runs every attack, each on a fresh process, and prints the table.
 *
 * @param root the repository root (the launcher is `<root>/plugin/pulumi-resource-helpdesk`, the build in `<root>/dist`)
 * @param log progress lines (stderr)
 * @returns each attack's outcome and figures
 */
export async function measureAttacks(root: string, log: (line: string) => void): Promise<AttackResult[]> {
  const results: AttackResult[] = [];
  const attacks: [string, () => Promise<AttackResult>][] = [
    ["M1", () => endlessLog(root)],
    ["L2", () => manyStreams(root, 5, 0xffffffff, 300 * MiB)],
    ["L2 within the limit", () => manyStreams(root, 5, 300 * MiB, 300 * MiB)],
    ["L1 plugin", () => elevenBytes(root, "plugin")],
    ["L1 analyzer", () => elevenBytes(root, "analyzer")],
  ];
  for (const [name, attack] of attacks) {
    log(`attacks: ${name}`);
    results.push(await attack());
  }
  console.log("\nattacks on the built plugin and analyzer (audit d2a89db; real processes on 127.0.0.1)");
  for (const result of results) {
    console.log(`  ${result.attack}`);
    console.log(`      ${result.outcome}`);
    console.log(
      `      peak RSS ${result.peakMiBBefore.toFixed(1)} -> ${result.peakMiBAfter.toFixed(1)} MiB; answered in ${result.answeredMs.toFixed(0)} ms; goal: ${result.goal}`,
    );
  }
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await measureAttacks(repoRoot, (line) => void process.stderr.write(`${line}\n`));
