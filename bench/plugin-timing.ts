/**
 * A preload for the native plugin's Node.js process (`node --import bench/plugin-timing.ts dist/bin/pulumi-resource-helpdesk.js`),
 * used by bench/native-profile.ts only: it wraps every gRPC handler the plugin registers and records, per method, how
 * many calls came, their wall time (request received → answer handed to grpc-js) and how many calls were in flight at
 * once. The plugin's code is not changed: the wrapper sits on `@grpc/grpc-js`'s `Server.prototype.addService`, which
 * the plugin's ES module import shares with this CommonJS require (one module instance).
 *
 * The summary goes to `$HELPDESK_PLUGIN_TIMING_DIR/timing-<pid>.json`, rewritten at most every 200 ms while calls
 * come (the engine may kill the plugin without a signal it can catch) and on SIGINT/SIGTERM.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as Grpc from "@grpc/grpc-js";

const dir = process.env.HELPDESK_PLUGIN_TIMING_DIR;
if (!dir) throw new Error("plugin-timing.ts: HELPDESK_PLUGIN_TIMING_DIR is not set");
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
  writeFileSync(join(dir!, `timing-${process.pid}.json`), JSON.stringify(summary));
}

function scheduleFlush(): void {
  flushTimer ??= setTimeout(flush, 200);
  flushTimer.unref();
}

const grpc = createRequire(import.meta.url)("@grpc/grpc-js") as typeof Grpc;
const addService = grpc.Server.prototype.addService;
grpc.Server.prototype.addService = function (
  this: Grpc.Server,
  service: Grpc.ServiceDefinition,
  implementation: Grpc.UntypedServiceImplementation,
): void {
  const wrapped: Grpc.UntypedServiceImplementation = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const timing: MethodTiming = (methods[name] ??= { ms: [], startedAt: [] });
    wrapped[name] = ((call: Grpc.ServerUnaryCall<unknown, unknown>, callback: Grpc.sendUnaryData<unknown>) => {
      const started = performance.now();
      firstCall ??= started;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      (handler as Grpc.handleUnaryCall<unknown, unknown>)(call, (...args: Parameters<Grpc.sendUnaryData<unknown>>) => {
        inFlight--;
        timing.ms.push(performance.now() - started);
        timing.startedAt.push(started - firstCall!);
        scheduleFlush();
        callback(...args);
      });
    }) as Grpc.UntypedHandleCall;
  }
  addService.call(this, service, wrapped);
};

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    flush();
    process.exit(0);
  });
}
