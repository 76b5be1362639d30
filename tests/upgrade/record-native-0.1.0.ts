/**
 * Records the fixture of tests/upgrade/native-upgrade.test.ts: a stack made by the native provider as pulumi-helpdesk
 * 0.1.0 ships it in its npm package (the launcher plugin/pulumi-resource-helpdesk running `node` on dist/), the way
 * Pulumi's provider teams record a baseline for an upgrade test (github.com/pulumi/providertest: record with the
 * released provider, preview with the new one).
 *
 * Run once, from the repository root, after `bash scripts/build.sh` (it is not part of `npm test`), with a checkout of
 * the released 0.1.0 (commit 9b3835a, built: `git worktree add /tmp/v010 9b3835a && (cd /tmp/v010 && npm run build)`)
 * whose plugin records the state:
 *
 *   node tests/upgrade/record-native-0.1.0.ts /tmp/v010
 *
 * It writes tests/upgrade/native-0.1.0/: the program (examples/yaml's, two help desks), the stack's config file
 * `Pulumi.recorded.yaml` (secrets as ciphertext under the passphrase {@link PASSPHRASE}), the exported state
 * `state.json`, and the two emulators' data files `home.db` and `eu.db` (SQLite; clients, tokens as hashes, the
 * webhooks with the ids the state records), so the test can start the same help desks on the same ports.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
// The built package (run scripts/build.sh first): Node runs this file with type stripping, which resolves no `.js`
// import of a `.ts` source.
import { loginConfigEntries } from "../../dist/auth/grant.js";
import { startEmulator } from "../../dist/emulator/index.js";
import { signInAutoApproved } from "../../dist/emulator-client/index.js";
import { parseBaseUrl } from "../../dist/kernel/base-url.js";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { withLocalPlugin } from "../support/examples.ts";
import { DESKS, PASSPHRASE, STACK } from "./fixture.ts";

const fixture = join(repoRoot, "tests/upgrade/native-0.1.0");

/** @param baseline the checkout of 0.1.0 whose plugin (its `plugin/` launcher and built `dist/`) makes the stack */
async function record(baseline: string): Promise<void> {
  rmSync(fixture, { recursive: true, force: true });
  mkdirSync(fixture, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "helpdesk-record-"));
  const example = readFileSync(join(repoRoot, "examples/yaml/Pulumi.yaml"), "utf8");
  const program = withLocalPlugin(example, join(baseline, "plugin"));
  writeFileSync(join(work, "Pulumi.yaml"), program);
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${join(work, "state")}`,
    // Pulumi's workspace files and plugin cache in the scratch folder, not the real home (the CLI comes from PATH).
    PULUMI_HOME: join(work, "pulumi-home"),
    PULUMI_CONFIG_PASSPHRASE: PASSPHRASE,
    HELPDESK_TOKEN_CACHE_DIR: join(work, "token-cache"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  mkdirSync(join(work, "state"));
  // Asynchronously: the emulators run in this process and must go on responding while pulumi runs.
  const run = async (args: string[]): Promise<string> =>
    (
      await promisify(execFile)("pulumi", [...args, "--stack", STACK, "--non-interactive"], {
        cwd: work,
        env,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      })
    ).stdout;
  const emulators = [];
  try {
    await run(["stack", "init", "--secrets-provider", "passphrase"]);
    for (const [name, desk] of Object.entries(DESKS)) {
      const emulator = await startEmulator({
        port: desk.port,
        autoApprove: true,
        clients: [desk.client],
        dataFile: join(work, `${name}.db`),
      });
      emulators.push(emulator);
      const tokens = await signInAutoApproved({ baseUrl: emulator.url, ...desk.client });
      const parsed = parseBaseUrl(emulator.url);
      if ("problem" in parsed) throw new Error(parsed.problem);
      const entries = loginConfigEntries(
        { ...desk.client, baseUrl: parsed.url },
        tokens,
        name === "home" ? "helpdesk" : "eu",
      );
      await run([
        "config",
        "set-all",
        ...entries.flatMap(({ key, value, secret }) => [secret ? "--secret" : "--plaintext", `${key}=${value}`]),
      ]);
    }
    await run(["up", "--yes", "--skip-preview"]);
    writeFileSync(join(fixture, "state.json"), await run(["stack", "export"]));
  } finally {
    for (const emulator of emulators) await emulator.close();
  }
  // The program as native-upgrade.test.ts runs it: its plugin path is replaced there by today's executable's folder.
  writeFileSync(join(fixture, "Pulumi.yaml"), withLocalPlugin(example, "../../plugin"));
  copyFileSync(join(work, `Pulumi.${STACK}.yaml`), join(fixture, `Pulumi.${STACK}.yaml`));
  for (const name of Object.keys(DESKS)) copyFileSync(join(work, `${name}.db`), join(fixture, `${name}.db`));
  rmSync(work, { recursive: true, force: true });
  console.log(`recorded ${fixture}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const baseline = process.argv[2];
  if (!baseline) throw new Error("usage: node tests/upgrade/record-native-0.1.0.ts <checkout of 0.1.0, built>");
  await record(baseline);
}
