/**
 * Upgrading the native provider under an existing stack, as Pulumi's provider teams test it (github.com/pulumi/
 * providertest `PreviewProviderUpgrade`: record a stack with the released provider, then preview it with the new one):
 * the fixture tests/upgrade/native-0.1.0 was recorded by tests/upgrade/record-native-0.1.0.ts with the native plugin
 * of pulumi-helpdesk 0.1.0 as it ships in its npm package (a launcher running `node`), on two help desks whose data
 * files it keeps. Here the same help desks are started from copies of those files, on the recorded ports, the state is
 * imported into a new backend, and the program runs with today's self-contained plugin executable (unpacked from the
 * release archive of this run's shared release build, tests/support/release.ts): `pulumi preview` must show no change (providers and webhooks alike), and
 * `pulumi destroy` must delete both recorded webhooks from their help desks (refreshing the long-expired access
 * tokens on the way).
 */

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { ARCHIVE } from "../no-node/no-node-desks.js";
import { heldWebhooks } from "../support/emulator.js";
import { pulumiAvailable } from "../support/pulumi.js";
import { pulumi, pulumiEnv } from "../support/pulumi-cli.js";
import { sharedRelease } from "../support/release.js";
import { DESKS, PASSPHRASE, STACK } from "./fixture.js";

const fixture = fileURLToPath(new URL("./native-0.1.0", import.meta.url));

interface RecordedResource {
  type: string;
  id?: string;
  urn: string;
}

describe.skipIf(!pulumiAvailable())(
  "a stack recorded with the native provider 0.1.0, run with today's plugin executable",
  () => {
    const emulators: Record<string, RunningEmulator> = {};
    /** The emulator of help desk `name` (beforeAll starts `home` and `eu`). */
    const emulator = (name: string): RunningEmulator => required(emulators[name], `the ${name} emulator`);
    let work: string;
    let env: NodeJS.ProcessEnv;
    const recorded = JSON.parse(readFileSync(join(fixture, "state.json"), "utf8")) as {
      deployment: { resources: RecordedResource[] };
    };
    const webhookIds = recorded.deployment.resources
      .filter((resource) => resource.type === "helpdesk:index:Webhook")
      .map((resource) => required(resource.id, `the id of ${resource.type}`));

    const run = async (args: string[]): Promise<string> => {
      const ran = await pulumi([...args, "--stack", STACK], work, env);
      if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
      return ran.stdout;
    };

    beforeAll(async () => {
      work = mkdtempSync(join(tmpdir(), "helpdesk-upgrade-"));
      // The help desks as the recording left them: same clients, tokens and webhooks, same ports (in the recorded base URLs).
      for (const [name, desk] of Object.entries(DESKS)) {
        copyFileSync(join(fixture, `${name}.db`), join(work, `${name}.db`));
        emulators[name] = await startEmulator({
          port: desk.port,
          clients: [desk.client],
          dataFile: join(work, `${name}.db`),
        });
      }
      // Today's plugin: the release archive's executable, unpacked where the program's `plugins.providers` points.
      const plugin = join(work, "plugin");
      mkdirSync(plugin);
      const unpacked = await runCommand("tar", ["-xzf", join(await sharedRelease(), ARCHIVE), "-C", plugin], {
        cwd: work,
        env: process.env,
      });
      if (unpacked.code !== 0) throw new Error(shown("tar -xzf", unpacked));
      writeFileSync(
        join(work, "Pulumi.yaml"),
        readFileSync(join(fixture, "Pulumi.yaml"), "utf8").replace("path: ../../plugin", `path: ${plugin}`),
      );
      copyFileSync(join(fixture, `Pulumi.${STACK}.yaml`), join(work, `Pulumi.${STACK}.yaml`));
      mkdirSync(join(work, "state"));
      env = {
        ...pulumiEnv(`file://${join(work, "state")}`, join(work, "token-cache")),
        PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
      };
      await run(["stack", "init", "--secrets-provider", "passphrase"]);
      await run(["stack", "import", "--file", join(fixture, "state.json")]);
    }, 300_000);

    afterAll(async () => {
      for (const emulator of Object.values(emulators)) await emulator.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it("the recorded help desks hold the recorded webhooks", async () => {
      expect(webhookIds).toHaveLength(2);
      const held = [...(await heldWebhooks(emulator("home"))), ...(await heldWebhooks(emulator("eu")))].map(
        (hook) => hook.id,
      );
      expect(held.sort()).toEqual([...webhookIds].sort());
    });

    it("preview shows no change: providers and webhooks are as the recording left them", async () => {
      const preview = await run(["preview", "--expect-no-changes", "--diff"]);
      expect(preview).not.toMatch(/\bto (create|update|replace|delete)\b/);
      expect(preview).toMatch(/4 unchanged/); // the stack, the explicit provider and the two webhooks (the default provider is not counted)
    });

    it("destroy deletes both recorded webhooks from their help desks", async () => {
      await run(["destroy", "--yes", "--skip-preview"]);
      expect(await heldWebhooks(emulator("home"))).toEqual([]);
      expect(await heldWebhooks(emulator("eu"))).toEqual([]);
    });
  },
);
