/**
 * The audit's attacks on the built plugin and analyzer, rerun as real processes over 127.0.0.1 (audit M1, L1, L2;
 * bench/attacks.ts prints what they cost): what is asserted is behaviour, never a time.
 *
 * - M1: the engine (a stand-in that started the plugin) answers `Log` with an endless body: the plugin's client fails
 *   the call having taken in at most 4 MiB and a chunk, the warning goes to stderr, the refused `Configure` is answered;
 *   an engine whose `Log` never answers does not hold `Cancel` and its refresh warning.
 * - L1: the 11-byte request `0a ff ff ff ff 0f` (and a bogus length inside an embedded message) to `CheckConfig`,
 *   `Configure`, `Create` and the analyzer's `Analyze`: an error status, and a probe right after it is answered.
 * - L2: five streams to `Configure`, each declaring 4 GiB and sending on: each refused at its prefix, its stream closed.
 */
import { connect, constants, createServer, type Http2Server, type ServerHttp2Stream } from "node:http2";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANALYZER_EXECUTABLE, PLUGIN_EXECUTABLE, WEBHOOK_TYPE } from "../../kernel/names.js";
import { ANALYZER_PATHS } from "../../policy/proto.js";
import { PROVIDER_PATHS, providerPb, structPb } from "../../provider/native/proto.js";
import { NOT_PROTOBUF } from "../../rpc/protobuf.js";
import { unaryClient } from "../../rpc/unary-client.js";
import { DEFAULT_MAX_MESSAGE_BYTES, GRPC_STATUS, GrpcStatusError, PULUMI_MAX_MESSAGE_BYTES } from "../../rpc/wire.js";
import { type RunningProcess, startProcess } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

/** A started plugin or analyzer: its process and its address. */
interface Started {
  run: RunningProcess;
  address: string;
}

/** Starts the built plugin (its launcher) or analyzer with `args`, and waits for its port. */
async function start(which: "plugin" | "analyzer", args: string[]): Promise<Started> {
  const run =
    which === "plugin"
      ? startProcess(join(repoRoot, "plugin", PLUGIN_EXECUTABLE), args)
      : startProcess(process.execPath, [join(repoRoot, "dist/bin/release.js"), ANALYZER_EXECUTABLE, ...args]);
  const port = (await run.waitFor("stdout", /^(\d+)\n/, "the port"))[1];
  return { run, address: `127.0.0.1:${port}` };
}

/** What a call settles with: the response's bytes, or the error's code and message. */
async function outcome(promise: Promise<Uint8Array>): Promise<Buffer | { code: number; message: string }> {
  try {
    return Buffer.from(await promise);
  } catch (error) {
    if (!(error instanceof GrpcStatusError)) throw error;
    return { code: error.code, message: error.message };
  }
}

/** What a stand-in engine's `Log` does: answer with an endless body, or never. */
type LogBehaviour = "endless" | "hang";

/** A stand-in engine: the health check gets UNIMPLEMENTED (it is there); `Log` gets {@link LogBehaviour}. */
interface StandInEngine {
  address: string;
  /** Each `Log` call's stream: bytes the plugin took in of its endless body, and how the stream closed. */
  logs: { flushed: number; rstCode: number | undefined; closed: boolean }[];
  close(): Promise<void>;
}

async function standInEngine(log: LogBehaviour): Promise<StandInEngine> {
  const logs: StandInEngine["logs"] = [];
  const server: Http2Server = createServer();
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
    const entry = { flushed: 0, rstCode: undefined as number | undefined, closed: false };
    logs.push(entry);
    stream.on("close", () => {
      entry.closed = true;
      entry.rstCode = stream.rstCode;
    });
    if (log === "hang") return;
    stream.respond({ ":status": 200, "content-type": "application/grpc+proto" });
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    let first = true;
    const pump = (): void => {
      while (!stream.destroyed && !stream.closed) {
        const bytes = first ? Buffer.concat([Buffer.from([0, 0xff, 0xff, 0xff, 0xf0]), chunk]) : chunk;
        first = false;
        const ok = stream.write(bytes, (error) => {
          if (!error) entry.flushed += bytes.length;
        });
        if (!ok) return void stream.once("drain", pump);
      }
    };
    pump();
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
  return {
    address: `127.0.0.1:${port}`,
    logs,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const entry of logs) entry.closed = true;
      }),
  };
}

const struct = (properties: Record<string, unknown>) =>
  structPb.Struct.fromJavaScript(properties as Parameters<typeof structPb.Struct.fromJavaScript>[0]);
const configure = (baseUrl: string): Uint8Array =>
  new providerPb.ConfigureRequest()
    .setArgs(struct({ baseUrl, accessToken: "t0k3n" }))
    .setAcceptsecrets(true)
    .serializeBinary();

describe("M1: the plugin's calls to a hostile engine", () => {
  it("fails an endless Log answer having taken in no more than 4 MiB and a chunk, and warns on stderr instead", async () => {
    const engine = await standInEngine("endless");
    const plugin = await start("plugin", [engine.address]);
    const client = unaryClient(plugin.address);
    try {
      expect(
        await outcome(client.call(PROVIDER_PATHS.configure, configure("https://a.example.com"), 10_000)),
      ).toBeInstanceOf(Buffer);
      // The second, different Configure is refused and warned about at the engine: the warning's Log meets the endless body.
      const refused = await outcome(client.call(PROVIDER_PATHS.configure, configure("https://b.example.com"), 30_000));
      expect(refused).toMatchObject({ code: GRPC_STATUS.UNKNOWN });
      expect((refused as { message: string }).message).toMatch(/^this provider plugin is already configured/);
      expect(plugin.run.stderr()).toContain("warning: a second Configure with other settings");
      expect(engine.logs.length).toBe(1);
      const [log] = engine.logs;
      expect(log?.closed).toBe(true);
      expect(log?.rstCode).toBe(constants.NGHTTP2_CANCEL);
      expect(log?.flushed).toBeLessThanOrEqual(DEFAULT_MAX_MESSAGE_BYTES + 1024 * 1024);
    } finally {
      client.close();
      await plugin.run.stop("SIGKILL");
      await engine.close();
    }
  });

  it("answers Cancel, and its refresh warning goes to stderr, when the engine's Log never answers", async () => {
    const engine = await standInEngine("hang");
    const plugin = await start("plugin", [engine.address]);
    const client = unaryClient(plugin.address);
    try {
      await client.call(PROVIDER_PATHS.configure, configure("https://a.example.com"), 10_000);
      const read = new providerPb.ReadRequest()
        .setId("wh_1")
        .setUrn(`urn:pulumi:dev::p::${WEBHOOK_TYPE}::hook`)
        .setType(WEBHOOK_TYPE)
        .setProperties(struct({ event: "ticket_opened", url: "https://hooks.example.com/x" }));
      await client.call(PROVIDER_PATHS.read, read.serializeBinary(), 10_000);
      // Cancel waits for its warning's Log, which never settles but for its deadline.
      expect(await outcome(client.call(PROVIDER_PATHS.cancel, new Uint8Array(0), 30_000))).toBeInstanceOf(Buffer);
      expect(engine.logs.length).toBe(1);
      expect(plugin.run.stderr()).toMatch(/warning: .*refresh/);
    } finally {
      client.close();
      await plugin.run.stop("SIGKILL");
      await engine.close();
    }
  });
});

describe("L1 and L2: requests that used to hold the plugin and the analyzer", () => {
  let plugin: Started;
  let analyzer: Started;
  let engine: StandInEngine;

  beforeAll(async () => {
    engine = await standInEngine("hang");
    [plugin, analyzer] = await Promise.all([start("plugin", []), start("analyzer", [engine.address, "."])]);
  });

  afterAll(async () => {
    await Promise.all([plugin?.run.stop("SIGKILL"), analyzer?.run.stop("SIGKILL")]);
    await engine?.close();
  });

  /** A length of 4 GiB - 1 as a varint. */
  const HUGE = "ffffffff0f";

  it("answers the 11-byte request and a bogus length in an embedded message with an error, and serves the call after it", async () => {
    const cases: { who: Started; path: string; probe: string; hex: string }[] = [
      ...[PROVIDER_PATHS.checkConfig, PROVIDER_PATHS.configure, PROVIDER_PATHS.create].map((path) => ({
        who: plugin,
        path,
        probe: PROVIDER_PATHS.getPluginInfo,
        hex: `0a${HUGE}`,
      })),
      // Configure's args (field 2, a Struct) whose map entry's key declares 4 GiB; and its variables map (field 1)
      // whose entry's value does.
      { who: plugin, path: PROVIDER_PATHS.configure, probe: PROVIDER_PATHS.getPluginInfo, hex: `12080a060a${HUGE}` },
      { who: plugin, path: PROVIDER_PATHS.configure, probe: PROVIDER_PATHS.getPluginInfo, hex: `0a0612${HUGE}` },
      { who: analyzer, path: ANALYZER_PATHS.analyze, probe: ANALYZER_PATHS.getPluginInfo, hex: `0a${HUGE}` },
      // Analyze's properties (field 2, a Struct) whose map entry's key declares 4 GiB.
      { who: analyzer, path: ANALYZER_PATHS.analyze, probe: ANALYZER_PATHS.getPluginInfo, hex: `12080a060a${HUGE}` },
    ];
    for (const { who, path, probe, hex } of cases) {
      const client = unaryClient(who.address);
      try {
        // Deadlines far below the half minute google-protobuf spent on such a request, far above a refusal's time.
        expect(await outcome(client.call(path, Buffer.from(hex, "hex"), 10_000)), `${path} ${hex}`).toEqual({
          code: GRPC_STATUS.INTERNAL,
          message: NOT_PROTOBUF,
        });
        expect(await outcome(client.call(probe, new Uint8Array(0), 5_000)), `the probe after ${path}`).toBeInstanceOf(
          Buffer,
        );
      } finally {
        client.close();
      }
    }
  });

  it("refuses five streams declaring 4 GiB each at their prefix, closes them, and serves the call after them", async () => {
    const session = connect(`http://${plugin.address}`);
    session.on("error", () => undefined);
    try {
      const streams = Array.from({ length: 5 }, () => {
        const stream = session.request({
          ":method": "POST",
          ":path": PROVIDER_PATHS.configure,
          "content-type": "application/grpc+proto",
        });
        stream.on("error", () => undefined);
        let sent = 0;
        let status: string | undefined;
        let message: string | undefined;
        stream.on("response", (headers) => {
          status = String(headers["grpc-status"]);
          message = decodeURIComponent(String(headers["grpc-message"]));
        });
        stream.resume();
        const chunk = Buffer.alloc(1024 * 1024);
        const pump = (): void => {
          while (!stream.destroyed && !stream.closed && sent < 64) {
            sent++;
            if (!stream.write(sent === 1 ? Buffer.concat([Buffer.from([0, 0xff, 0xff, 0xff, 0xff]), chunk]) : chunk))
              return void stream.once("drain", pump);
          }
        };
        pump();
        return new Promise<{ status?: string; message?: string; sent: number; rstCode: number }>((resolve) =>
          stream.on("close", () => resolve({ status, message, sent, rstCode: stream.rstCode ?? -1 })),
        );
      });
      for (const closed of await Promise.all(streams)) {
        expect(closed).toMatchObject({
          status: String(GRPC_STATUS.RESOURCE_EXHAUSTED),
          message: `Received message larger than max (4294967295 vs ${PULUMI_MAX_MESSAGE_BYTES})`,
          rstCode: constants.NGHTTP2_NO_ERROR,
        });
        // Closed by the plugin before its 64 MiB were through.
        expect(closed.sent).toBeLessThan(64);
      }
    } finally {
      session.destroy();
    }
    const client = unaryClient(plugin.address);
    try {
      expect(await outcome(client.call(PROVIDER_PATHS.getPluginInfo, new Uint8Array(0), 5_000))).toBeInstanceOf(Buffer);
    } finally {
      client.close();
    }
  });
});
