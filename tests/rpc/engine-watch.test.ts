/**
 * Both plugins end with their engine (rpc/engine-watch.ts; audit I4: the analyzer had no watch). The engine address is
 * found among the arguments the engine gives each (flags first; a policy pack's folder after it), and the built plugin
 * and analyzer, real processes started with the address of a stand-in engine on 127.0.0.1, keep running while it
 * answers and exit once it stops.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ANALYZER_EXECUTABLE, PLUGIN_EXECUTABLE } from "../../kernel/names.js";
import { engineAddressOf } from "../../rpc/engine-watch.js";
import { serveUnary } from "../../rpc/unary-server.js";
import { type RunningProcess, startProcess } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";

describe("the engine address among a plugin's arguments", () => {
  it("is the first argument of the form host:port, after the flags, before a policy pack's folder", () => {
    expect(engineAddressOf(["127.0.0.1:40123"])).toBe("127.0.0.1:40123");
    expect(engineAddressOf(["--logtostderr", "-v=9", "127.0.0.1:40123"])).toBe("127.0.0.1:40123");
    expect(engineAddressOf(["--tracing", "127.0.0.1:9411", "127.0.0.1:40123"])).toBe("127.0.0.1:40123");
    expect(engineAddressOf(["127.0.0.1:40123", "."])).toBe("127.0.0.1:40123");
    expect(engineAddressOf(["--logtostderr", "[::1]:40123", ".", "-root=/x"])).toBe("[::1]:40123");
    expect(engineAddressOf(["localhost:1"])).toBe("localhost:1");
    expect(engineAddressOf([])).toBeUndefined();
    expect(engineAddressOf([".", "--logtostderr"])).toBeUndefined();
    expect(engineAddressOf(["127.0.0.1"])).toBeUndefined();
  });
});

/** Settles with the process's exit, or undefined once `ms` have passed (a bound on waiting). */
function exitWithin(run: RunningProcess, ms: number): Promise<{ code: number | null } | undefined> {
  return Promise.race([run.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}

describe("the plugin and the analyzer end with their engine", () => {
  it("keep running while the engine answers, and exit once it stops answering", async () => {
    // The engine's stand-in: a gRPC server of no method (it answers the health check UNIMPLEMENTED: it is there).
    const engine = await serveUnary(new Map());
    const address = `127.0.0.1:${engine.port}`;
    const runs = {
      [PLUGIN_EXECUTABLE]: startProcess(join(repoRoot, "plugin", PLUGIN_EXECUTABLE), ["--logtostderr", address]),
      // As the engine starts a policy pack's analyzer: its address, then the pack's folder.
      [ANALYZER_EXECUTABLE]: startProcess(process.execPath, [
        join(repoRoot, "dist/bin/release.js"),
        ANALYZER_EXECUTABLE,
        address,
        ".",
      ]),
    };
    try {
      for (const run of Object.values(runs)) await run.waitFor("stdout", /^\d+\n/, "the port");
      for (const [name, run] of Object.entries(runs))
        expect(await exitWithin(run, 5_000), `${name} exited while its engine answered: ${run.stderr()}`).toBe(
          undefined,
        );
      await engine.close();
      for (const [name, run] of Object.entries(runs)) {
        const exit = await exitWithin(run, 15_000);
        expect(exit, `${name} still runs 15 s after its engine stopped`).toEqual(expect.objectContaining({ code: 0 }));
        expect(run.stderr()).toContain(`${name}: the engine at ${address} has not responded for`);
      }
    } finally {
      for (const run of Object.values(runs)) await run.stop("SIGKILL");
      await engine.close();
    }
  });
});
