/**
 * What the policy pack costs a `pulumi preview`, measured by `npm run bench` (bench/bench.ts) in its run, or alone by
 * `npm run bench:policy` (this file run directly: same measurement, its own emulator). The preview of 300 native
 * webhooks (bench/programs/native, the default provider, signed in to an emulator), each a first preview (nothing
 * created: every webhook is a create to analyse; the pack sees all 300 and the stack), in three kinds interleaved,
 * `REPS` of each:
 *
 * - `without`: no policy pack;
 * - `executable`: `--policy-pack` naming the release executable as `pulumi-analyzer-helpdesk` (policy/server.ts);
 * - `folder`: the npm package's folder `policy/` on `@pulumi/policy` (policy/pack.ts), launched as official Node.js
 *   language hosts' `RunPlugin` launches it (`node @pulumi/pulumi/cmd/run-policy-pack <engine> .` in the folder: the
 *   Node.js host built here lacks `RunPlugin`, tests/policy/typescript.test.ts says more).
 *
 * With the pack, every policy is enforced (`allowedHosts` and `events` set; every webhook has a delivery token, so
 * `webhook-has-delivery-token`, advisory, reports nothing) and every webhook complies, so every policy is evaluated
 * on every webhook and on the stack, and the preview passes. Goal (issue 36): `executable` at most
 * 1.10 times `without`. Printed as median, min and max with ratios; never asserted.
 */

import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation/index.js";
import { startEmulator } from "pulumi-helpdesk/emulator";
import { EVENTS } from "../dist/kernel/events.js";
import { ANALYZER_EXECUTABLE } from "../dist/kernel/names.js"; // from the build, as scripts/release/executable.ts says
import { required } from "../dist/kernel/required.js";
import { POLICY_NAMES } from "../dist/policy/policies.js";
import { repoRoot } from "../scripts/lib/repo-root.ts";
import { releaseFolder } from "./plugin-start.ts";
import { median } from "./results.ts";
import { BENCH_CLIENT, backendEnv, signedInConfig } from "./stack-config.ts";

/** Webhooks in the previewed program. */
export const POLICY_COUNT = 300;

/** The kinds of preview, in the order of each repetition. */
export const PREVIEW_KINDS = ["without", "executable", "folder"] as const;

/** One kind of preview. */
export type PreviewKind = (typeof PREVIEW_KINDS)[number];

/** What {@link measurePolicyPreviews} measured: each kind's preview times (ms). */
export type PolicyPreviewResults = Record<PreviewKind, number[]>;

/** `median (min-max)` in seconds. */
function summary(ms: number[]): string {
  return `${(median(ms) / 1000).toFixed(2)} s (${(Math.min(...ms) / 1000).toFixed(2)}-${(Math.max(...ms) / 1000).toFixed(2)})`;
}

/**
 * The stack the policy benchmarks preview: the program `bench/programs/native` with {@link POLICY_COUNT} compliant
 * webhooks, each with a delivery token (`bench:deliveryToken`), in a file backend of its own under `work`, signed in
 * to the emulator at `emulatorUrl`; and a policy config file that enforces every policy (`allowedHosts` and `events`
 * set, so every policy reads the inputs).
 *
 * @param root the repository root (the program is `<root>/bench/programs/native`)
 * @param work a scratch folder, removed by the caller
 * @param stackName the stack's name
 * @param emulatorUrl the emulator's base URL
 * @returns the stack, configured, and the path of the policy config file (for `--policy-pack-config`)
 * @throws Error when the stack cannot be created or configured
 */
export async function governedStack(
  root: string,
  work: string,
  stackName: string,
  emulatorUrl: string,
): Promise<{ stack: Stack; configFile: string }> {
  const configFile = join(work, "policy-config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      [POLICY_NAMES.allowedHosts]: { allowedHosts: ["*.example.test"] },
      [POLICY_NAMES.allowedEvents]: { events: [...EVENTS] },
    }),
  );
  const stateDir = join(work, "state");
  mkdirSync(stateDir);
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName, workDir: join(root, "bench/programs/native") },
    { envVars: { ...backendEnv(stateDir), HELPDESK_TOKEN_CACHE_DIR: join(work, "token-cache") } },
  );
  await stack.setAllConfig({
    ...(await signedInConfig(emulatorUrl, POLICY_COUNT)),
    "bench:deliveryToken": { value: "true" },
  });
  return { stack, configFile };
}

/**
 * Measures the three kinds of preview, interleaved, and prints the table.
 *
 * @param root the repository root (the program is `<root>/bench/programs/native`, the folder pack `<root>/policy`)
 * @param emulatorUrl a running emulator that knows {@link BENCH_CLIENT}
 * @param reps previews of each kind
 * @param log progress lines (stderr)
 * @returns every preview's time
 * @throws Error when a preview fails (a violation would: every webhook complies)
 */
export async function measurePolicyPreviews(
  root: string,
  emulatorUrl: string,
  reps: number,
  log: (line: string) => void,
): Promise<PolicyPreviewResults> {
  const work = mkdtempSync(join(tmpdir(), "helpdesk-bench-policy-"));
  const release = await releaseFolder(work);
  try {
    const folderPack = join(work, "folder-pack");
    writeFileSync(
      folderPack,
      `#!/bin/sh\ncd ${JSON.stringify(join(root, "policy"))} && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "node_modules/@pulumi/pulumi/cmd/run-policy-pack"))} "$1" .\n`,
    );
    chmodSync(folderPack, 0o755);
    const packs: Record<PreviewKind, string[]> = {
      without: [],
      executable: [join(release, ANALYZER_EXECUTABLE)],
      folder: [folderPack],
    };
    const { stack, configFile } = await governedStack(root, work, "policy", emulatorUrl);
    try {
      await stack.preview(); // warms the plugin cache and the program's first compilation
      const results: PolicyPreviewResults = { without: [], executable: [], folder: [] };
      for (let rep = 0; rep < reps; rep++) {
        for (const kind of PREVIEW_KINDS) {
          const began = performance.now();
          const pack = packs[kind].length > 0 ? { policyPacks: packs[kind], policyPackConfigs: [configFile] } : {};
          await stack.preview({ color: "never", ...pack });
          results[kind].push(performance.now() - began);
        }
        log(
          `policy rep ${rep + 1}/${reps}: ${PREVIEW_KINDS.map((kind) => `${kind} ${(required(results[kind].at(-1), `a time of ${kind}`) / 1000).toFixed(2)} s`).join(", ")}`,
        );
      }
      const without = median(results.without);
      console.log(
        [
          "",
          `pulumi preview of ${POLICY_COUNT} native webhooks, every policy enforced, all compliant (median, min-max of ${reps}; one run, interleaved):`,
          `  without a policy pack                    ${summary(results.without)}`,
          `  the release's ${ANALYZER_EXECUTABLE}  ${summary(results.executable)}   ratio ${(median(results.executable) / without).toFixed(2)} (goal: at most 1.10)`,
          `  the npm folder policy/ (@pulumi/policy)  ${summary(results.folder)}   ratio ${(median(results.folder) / without).toFixed(2)}`,
        ].join("\n"),
      );
      return results;
    } finally {
      await stack.workspace.removeStack("policy", { force: true }).catch(() => undefined);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [BENCH_CLIENT] });
  try {
    await measurePolicyPreviews(repoRoot, emulator.url, 3, (line) => void process.stderr.write(`${line}\n`));
  } finally {
    await emulator.close();
  }
}
