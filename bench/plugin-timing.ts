/**
 * A preload for the native plugin's Node.js process (`node --import bench/plugin-timing.ts dist/bin/pulumi-resource-helpdesk.js`),
 * used by bench/native-profile.ts only: it watches every call of the plugin's gRPC server and records, per method, how
 * many calls came, their wall time (request headers received → the call's HTTP/2 stream closed, its response and
 * trailers written) and how many calls were in flight at once. The plugin's code is not changed: the watch sits on
 * `node:http2`'s `createServer` (`rpc/unary-server.ts` serves on it), replaced here and made visible to the
 * plugin's ES module import with `syncBuiltinESMExports`.
 *
 * The summary goes to `$HELPDESK_PLUGIN_TIMING_DIR/timing-<pid>.json`, rewritten at most every 200 ms while calls
 * come (the engine may kill the plugin without a signal it can catch) and on SIGINT/SIGTERM.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import http2 from "node:http2";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";

const given = process.env.HELPDESK_PLUGIN_TIMING_DIR;
if (!given) throw new Error("plugin-timing.ts: HELPDESK_PLUGIN_TIMING_DIR is not set");
const dir: string = given;
mkdirSync(dir, { recursive: true });

/** One method's calls: wall times in ms, in arrival order, and the highest number in flight seen. */
interface MethodTiming {
  ms: number[];
  /** Start of each call, ms since the first call of any method. */
  startedAt: number[];
}

const methods: Record<string, MethodTiming> = {};
let inFlight = 0;
let maxInFlight = 0;
let firstCall: number | undefined;
let flushTimer: NodeJS.Timeout | undefined;

function flush(): void {
  flushTimer = undefined;
  const summary = {
    pid: process.pid,
    maxInFlight,
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
    methods,
  };
  writeFileSync(join(dir, `timing-${process.pid}.json`), JSON.stringify(summary));
}

function scheduleFlush(): void {
  flushTimer ??= setTimeout(flush, 200);
  flushTimer.unref();
}

/** A method's name from its path, as the generated declarations name it: `/pulumirpc.ResourceProvider/Create` → `create`. */
function methodName(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.charAt(0).toLowerCase() + name.slice(1);
}

const createServer = http2.createServer;
http2.createServer = function (this: unknown, ...args: Parameters<typeof createServer>) {
  const server = createServer.apply(this, args);
  server.prependListener("stream", (stream, headers) => {
    const method = methodName(String(headers[":path"] ?? ""));
    const timing: MethodTiming = methods[method] ?? { ms: [], startedAt: [] };
    methods[method] = timing;
    const started = performance.now();
    firstCall ??= started;
    const first = firstCall;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    stream.once("close", () => {
      inFlight--;
      timing.ms.push(performance.now() - started);
      timing.startedAt.push(started - first);
      scheduleFlush();
    });
  });
  return server;
} as typeof createServer;
syncBuiltinESMExports();

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    flush();
    process.exit(0);
  });
}
