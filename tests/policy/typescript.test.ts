/**
 * The policy pack with the real Pulumi CLI, the dynamic `Webhook` (TypeScript: tests/e2e/program) and the emulator,
 * in both shipping forms:
 *
 * - the release's executable as `pulumi-analyzer-helpdesk` (the archive's link: tests/support/release.ts builds the
 *   release once per run), which the engine runs as a binary policy pack;
 * - the npm package's folder `policy/` (its `index.js`, `PulumiPolicy.yaml` and the compiled `dist/policy/pack.js`,
 *   on `@pulumi/policy`'s public `PolicyPack`). The CLI built here cannot run a folder pack: its Node.js language host
 *   lacks `RunPlugin` (measured with the v3.68 host scripts/pulumi-build builds; official hosts have it). So the engine is given a two-line launcher that does what
 *   official hosts' `RunPlugin` does: `node @pulumi/pulumi/cmd/run-policy-pack <engine> .` in the folder.
 *
 * For each: a program with an http webhook, one on a host outside `allowedHosts`, a duplicate pair (url given as a
 * secret) and a compliant one fails `pulumi preview`, each violation naming its resource, and no url, path, query or
 * token anywhere in the output; `pulumi up` with the pack creates nothing on the emulator; the compliant webhooks
 * alone pass preview, `webhook-has-delivery-token` printed as advisory for each (they declare no delivery token),
 * fail it when the config makes that policy mandatory, and are created; beside them, a webhook with a delivery token
 * breaks no policy, at either level.
 */

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LocalWorkspace } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { splitRegisteredUrl } from "../../kernel/delivery-token.js";
import { ANALYZER_EXECUTABLE } from "../../kernel/names.js";
import { POLICY_NAMES } from "../../policy/policies.js";
import { runCommand } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { unpackRelease } from "../no-node/no-node-desks.js";
import { heldWebhooks } from "../support/emulator.js";
import { configAsLoginWrites, createTestStack, pulumiAvailable, type TestStack } from "../support/pulumi.js";
import {
  COMPLIANT,
  FORBIDDEN_IN_OUTPUT,
  PACK_CONFIG,
  SECRET_URL,
  TOKEN_MANDATORY_CONFIGS,
  VIOLATING,
  VIOLATORS,
  WITH_TOKEN,
} from "./program-hooks.js";

const programDir = fileURLToPath(new URL("../e2e/program", import.meta.url));
const client = {
  clientId: "policy-client",
  clientSecret: "policy-client-secret-value",
  redirectUri: "http://127.0.0.1:1/callback",
  name: "policy",
};

/** What a Pulumi run printed and whether it succeeded. */
interface Outcome {
  ok: boolean;
  output: string;
}

describe.skipIf(!pulumiAvailable())(
  "the policy pack with pulumi preview and up, the dynamic Webhook and the emulator",
  () => {
    let emulator: RunningEmulator;
    let test: TestStack;
    let work: string;
    /** The pack in each form, made by beforeAll. */
    const packs: Record<"executable" | "folder", string> = { executable: "", folder: "" };
    let configFile: string;
    /** {@link TOKEN_MANDATORY_CONFIGS}' files, made by beforeAll. */
    let tokenMandatoryFiles: string[];

    /**
     * Runs preview or up with a pack and the config file, never throwing for a failed run. `up` is the CLI's own
     * `pulumi up --yes`, which previews first as a person's `pulumi up` does (the Automation API's `up` passes
     * `--skip-preview`, under which Pulumi analyses resource by resource and may create a compliant webhook before a
     * violation stops the run: the README's "Governance" says so).
     *
     * @param config the `--policy-pack-config` file (default: {@link PACK_CONFIG}'s)
     */
    async function run(operation: "preview" | "up", pack: string, config = configFile): Promise<Outcome> {
      if (operation === "up") {
        const env = { ...process.env, ...(test.stack.workspace as LocalWorkspace).envVars };
        const args = [
          "up",
          "--yes",
          "--non-interactive",
          "--stack",
          test.stack.name,
          "--policy-pack",
          pack,
          "--policy-pack-config",
          config,
        ];
        const ran = await runCommand("pulumi", args, { cwd: programDir, env });
        return { ok: ran.code === 0, output: `${ran.stdout}\n${ran.stderr}` };
      }
      let output = "";
      try {
        await test.stack.preview({
          policyPacks: [pack],
          policyPackConfigs: [config],
          onOutput: (text: string) => (output += text),
        });
        return { ok: true, output };
      } catch (error) {
        return { ok: false, output: `${output}\n${error instanceof Error ? error.message : String(error)}` };
      }
    }

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "helpdesk-policy-ts-"));
      await unpackRelease(join(work, "release"));
      packs.executable = join(work, "release", ANALYZER_EXECUTABLE);
      // The folder form, launched as official Node.js hosts' RunPlugin launches it (see the file's comment).
      packs.folder = join(work, "folder-pack");
      writeFileSync(
        packs.folder,
        `#!/bin/sh\ncd ${JSON.stringify(join(repoRoot, "policy"))} && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(repoRoot, "node_modules/@pulumi/pulumi/cmd/run-policy-pack"))} "$1" .\n`,
      );
      chmodSync(packs.folder, 0o755);
      configFile = join(work, "policy-config.json");
      writeFileSync(configFile, JSON.stringify(PACK_CONFIG));
      tokenMandatoryFiles = TOKEN_MANDATORY_CONFIGS.map((config, index) => {
        const file = join(work, `policy-config-token-mandatory-${index}.json`);
        writeFileSync(file, JSON.stringify(config));
        return file;
      });
      emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
      const tokens = await signIn({ baseUrl: emulator.url, ...client });
      test = await createTestStack(programDir, {
        ...configAsLoginWrites(emulator.url, client, tokens),
        "e2e:secretUrl": { value: SECRET_URL, secret: true },
      });
    }, 300_000);

    afterAll(async () => {
      await test?.stack.destroy().catch(() => undefined);
      await test?.dispose();
      await emulator?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    for (const form of ["executable", "folder"] as const) {
      describe(`as the ${form === "executable" ? "release's executable" : "npm package's folder"}`, () => {
        it("fails preview of the violating program, naming each violation's resource and no url", async () => {
          await test.stack.setConfig("e2e:hooks", { value: JSON.stringify(VIOLATING) });
          const outcome = await run("preview", packs[form]);
          expect(outcome.ok, outcome.output).toBe(false);
          for (const { name, policy } of VIOLATORS) {
            expect(outcome.output, `${policy} on ${name}`).toMatch(new RegExp(`${policy}[\\s\\S]*"${name}"`));
          }
          expect(outcome.output).not.toMatch(new RegExp(`${POLICY_NAMES.https}[^\\n]*\\n[^\\n]*"compliant"`));
          for (const part of FORBIDDEN_IN_OUTPUT) expect(outcome.output, part).not.toContain(part);
        });

        it("up with the pack creates nothing", async () => {
          const outcome = await run("up", packs[form]);
          expect(outcome.ok, outcome.output).toBe(false);
          expect(outcome.output).toContain(POLICY_NAMES.https); // stopped by the pack, not by anything else
          expect(await heldWebhooks(emulator)).toEqual([]);
          for (const part of FORBIDDEN_IN_OUTPUT) expect(outcome.output, part).not.toContain(part);
        });

        it("fails preview of the compliant program when the config makes webhook-has-delivery-token mandatory", async () => {
          await test.stack.setConfig("e2e:hooks", { value: JSON.stringify([...COMPLIANT, WITH_TOKEN]) });
          for (const [index, file] of tokenMandatoryFiles.entries()) {
            const outcome = await run("preview", packs[form], file);
            expect(outcome.ok, `${JSON.stringify(TOKEN_MANDATORY_CONFIGS[index])}\n${outcome.output}`).toBe(false);
            for (const { name } of COMPLIANT)
              expect(outcome.output, name).toMatch(
                new RegExp(`\\[mandatory\\]\\s+${POLICY_NAMES.deliveryToken}[^\\n]*: ${name}\\)`),
              );
            expect(outcome.output).not.toMatch(new RegExp(`\\[advisory\\]\\s+${POLICY_NAMES.deliveryToken}`));
            expect(outcome.output).not.toMatch(
              new RegExp(`${POLICY_NAMES.deliveryToken}[^\\n]*: ${WITH_TOKEN.name}\\)`),
            );
            for (const part of FORBIDDEN_IN_OUTPUT) expect(outcome.output, part).not.toContain(part);
          }
        });

        it("passes the compliant program, printing webhook-has-delivery-token as advisory, which up creates", async () => {
          const hooks = [...COMPLIANT, WITH_TOKEN];
          await test.stack.setConfig("e2e:hooks", { value: JSON.stringify(hooks) });
          const previewed = await run("preview", packs[form]);
          expect(previewed.ok, previewed.output).toBe(true);
          for (const { name } of COMPLIANT)
            expect(previewed.output, name).toMatch(
              new RegExp(
                `\\[advisory\\]\\s+${POLICY_NAMES.deliveryToken}[^\\n]*: ${name}\\)\\n[^\\n]*\\n[^\\n]*"${name}"[^\\n]*set useDeliveryToken: true`,
              ),
            );
          expect(previewed.output).not.toMatch(
            new RegExp(`${POLICY_NAMES.deliveryToken}[^\\n]*: ${WITH_TOKEN.name}\\)`),
          );
          const created = await run("up", packs[form]);
          expect(created.ok, created.output).toBe(true);
          expect(
            (await heldWebhooks(emulator))
              .map(({ event, url }) => ({ event, url: splitRegisteredUrl(url).url }))
              .sort((a, b) => a.event.localeCompare(b.event)),
          ).toEqual(hooks.map(({ event, url }) => ({ event, url })).sort((a, b) => a.event.localeCompare(b.event)));
          await test.stack.destroy();
          expect(await heldWebhooks(emulator)).toEqual([]);
        });
      });
    }
  },
);
