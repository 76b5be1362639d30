/**
 * What the policy pack costs a `pulumi preview`: the preview of 300 native webhooks (bench/programs/native, the
 * default provider, signed in to an emulator) with `--policy-pack` naming the release executable as
 * `pulumi-analyzer-helpdesk` (all four policies enforced: `allowedHosts` and `events` set, every webhook compliant, so
 * the preview passes), against the same preview without it, in one run, interleaved (`REPS` of each), each preview a
 * first one (nothing created: every webhook is a create to analyse, the pack sees all 300 and the stack). Goal (issue 30): with the pack at most 1.3 times without.
 * And the analyzer's start: from starting the executable under its name to its port on stdout (what the engine
 * waits for), `STARTS` times, against the plugin's own start (`pulumi-resource-helpdesk`, the same executable) in the
 * same run.
 *
 * Printed as median, min and max with ratios; never asserted. Run alone, not by `npm run bench` (it builds the
 * executable and takes a few minutes): `npm run bench:policy` (scripts/lib/after-setup.sh sets up the toolchain).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LocalWorkspace } from "@pulumi/pulumi/automation/index.js";
import { EVENTS } from "../dist/kernel/events.js";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { ANALYZER_EXECUTABLE, PLUGIN_EXECUTABLE } from "../dist/kernel/names.js"; // from the build, as scripts/release/executable.ts says
import { POLICY_NAMES } from "../dist/policy/policies.js";
import { buildExecutable } from "../scripts/release/executable.ts";
import { median } from "./results.ts";
import { BENCH_CLIENT, backendEnv, signedInConfig } from "./stack-config.ts";

/** Webhooks in the previewed program. */
const COUNT = 300;
/** Previews of each kind (with and without the pack), interleaved. */
const REPS = 3;
/** Starts of the analyzer and of the plugin, interleaved. */
const STARTS = 10;

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** Milliseconds from spawning `path` (with the engine's address as its argument and an empty PATH) to its first line on stdout. */
function startOnce(path: string): Promise<number> {
  return new Promise((done, fail) => {
    const began = performance.now();
    const child = spawn(path, ["127.0.0.1:1"], { env: { PATH: "/nonexistent" }, stdio: ["ignore", "pipe", "ignore"] });
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`${path} printed no port within 30 s`));
    }, 30_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes("\n")) return;
      const ms = performance.now() - began;
      clearTimeout(timer);
      child.kill("SIGKILL");
      child.on("exit", () => done(ms));
    });
  });
}

/** `median (min-max)` in seconds. */
function summary(ms: number[]): string {
  return `${(median(ms) / 1000).toFixed(2)} s (${(Math.min(...ms) / 1000).toFixed(2)}-${(Math.max(...ms) / 1000).toFixed(2)})`;
}

const work = mkdtempSync(join(tmpdir(), "helpdesk-bench-policy-"));
const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
try {
  const built = await buildExecutable();
  // The archive's layout: the executable and its links (scripts/release/release.ts).
  const folder = join(work, "release");
  mkdirSync(folder);
  symlinkSync(built.path, join(folder, PLUGIN_EXECUTABLE));
  symlinkSync(PLUGIN_EXECUTABLE, join(folder, ANALYZER_EXECUTABLE));
  const starts = { analyzer: [] as number[], plugin: [] as number[] };
  for (let i = 0; i < STARTS; i++) {
    starts.analyzer.push(await startOnce(join(folder, ANALYZER_EXECUTABLE)));
    starts.plugin.push(await startOnce(join(folder, PLUGIN_EXECUTABLE)));
  }

  const configFile = join(work, "policy-config.json");
  writeFileSync(configFile, JSON.stringify({ [POLICY_NAMES.allowedHosts]: { allowedHosts: ["*.example.test"] }, [POLICY_NAMES.allowedEvents]: { events: [...EVENTS] } }));
  const stateDir = join(work, "state");
  mkdirSync(stateDir);
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "policy", workDir: join(ROOT, "bench/programs/native") },
    { envVars: { ...backendEnv(stateDir), HELPDESK_TOKEN_CACHE_DIR: join(work, "token-cache") } },
  );
  try {
    await stack.setAllConfig(await signedInConfig(emulator.url, COUNT));
    const previews = { without: [] as number[], with: [] as number[] };
    let violations = 0;
    await stack.preview(); // warms the plugin cache and the program's first compilation
    for (let rep = 0; rep < REPS; rep++) {
      let began = performance.now();
      await stack.preview({ color: "never" });
      previews.without.push(performance.now() - began);
      began = performance.now();
      // Every webhook complies (https, hosts below example.test, events among those allowed): the pack's common case,
      // every policy evaluated on every webhook and on the stack, and the preview passes.
      const output = (await stack.preview({ color: "never", policyPacks: [join(folder, ANALYZER_EXECUTABLE)], policyPackConfigs: [configFile] })).stdout;
      previews.with.push(performance.now() - began);
      violations = output.split("[mandatory]").length - 1;
      process.stderr.write(`rep ${rep + 1}/${REPS}: without ${(previews.without.at(-1)! / 1000).toFixed(2)} s, with the pack ${(previews.with.at(-1)! / 1000).toFixed(2)} s\n`);
    }
    const ratio = median(previews.with) / median(previews.without);
    process.stdout.write(
      [
        `pulumi preview of ${COUNT} native webhooks (median, min-max of ${REPS}; one run, interleaved):`,
        `  without a policy pack   ${summary(previews.without)}`,
        `  with the helpdesk pack  ${summary(previews.with)}   ratio ${ratio.toFixed(2)} (goal: at most 1.3)   violations: ${violations}`,
        `start to port, no Node.js on PATH (median, min-max of ${STARTS}):`,
        `  ${PLUGIN_EXECUTABLE.padEnd(25)} ${summary(starts.plugin)}`,
        `  ${ANALYZER_EXECUTABLE.padEnd(25)} ${summary(starts.analyzer)}   ratio ${(median(starts.analyzer) / median(starts.plugin)).toFixed(2)}`,
        "",
      ].join("\n"),
    );
  } finally {
    await stack.workspace.removeStack("policy", { force: true }).catch(() => undefined);
  }
} finally {
  await emulator.close();
  rmSync(work, { recursive: true, force: true });
}
