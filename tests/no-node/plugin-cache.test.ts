/**
 * The plugin cache stands alone: `pulumi plugin install resource helpdesk <version> --file <archive> --checksum
 * <sha256>` (the README's way for air-gapped sites) into an empty `PULUMI_HOME` puts the archive's files there and
 * nothing that points back into this repository (no launcher, no `package-root`); with automatic plugin acquisition
 * off, no Node.js on PATH and the program outside the repository, `pulumi preview` of a YAML program runs the plugin
 * from the cache: it checks the webhook against the stack's config. And `pulumi-helpdesk plugin install` run from the
 * release's executable installs that executable.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { signInAutoApproved } from "../../emulator-client/index.js";
import { pulumi, removeStack } from "../support/pulumi-cli.js";
import { runCommand, shown } from "../support/processes.js";
import { sharedRelease } from "../support/release.js";
import { ARCHIVE, linkTools, pulumiToolsReady, VERSION } from "./no-node-desks.js";

describe.skipIf(!pulumiToolsReady(["pulumi-language-yaml"]))("a plugin installed from the release archive, with no Node.js", () => {
  const stack = "cache";
  let work: string;
  let programDir: string;
  let pulumiHome: string;
  let env: NodeJS.ProcessEnv;
  let emulator: RunningEmulator;

  async function run(args: string[]): Promise<string> {
    const ran = await pulumi(args, programDir, env);
    if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
    return ran.stdout;
  }

  beforeAll(async () => {
    const release = await sharedRelease();
    work = mkdtempSync(join(tmpdir(), "helpdesk-plugin-cache-"));
    pulumiHome = join(work, "pulumi-home");
    programDir = join(work, "program");
    for (const dir of [pulumiHome, programDir, join(work, "state")]) mkdirSync(dir);
    env = {
      PATH: [linkTools(join(work, "bin"), ["pulumi", "pulumi-language-yaml"])].join(delimiter),
      HOME: process.env.HOME,
      TMPDIR: process.env.TMPDIR,
      PULUMI_HOME: pulumiHome,
      PULUMI_BACKEND_URL: `file://${join(work, "state")}`,
      PULUMI_CONFIG_PASSPHRASE: "plugin-cache-test-passphrase",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      NO_COLOR: "1",
      CI: "true",
    };
    const sum = readFileSync(join(release, "SHA256SUMS"), "utf8").split("\n").find((line) => line.endsWith(`  ${ARCHIVE}`))!.slice(0, 64);
    await run(["plugin", "install", "resource", "helpdesk", VERSION, "--file", join(release, ARCHIVE), "--checksum", sum]);
    writeFileSync(
      join(programDir, "Pulumi.yaml"),
      [
        "name: helpdesk-plugin-cache",
        "runtime: yaml",
        "resources:",
        "  opened:",
        "    type: helpdesk:index:Webhook",
        "    properties:",
        "      event: ticket_opened",
        "      url: https://hooks.example.test/opened",
        "",
      ].join("\n"),
    );
    const client = { clientId: "cache-client", clientSecret: "cache-client-secret-value", redirectUri: "http://127.0.0.1:1/callback", name: "cache" };
    emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    const tokens = await signInAutoApproved({ baseUrl: emulator.url, ...client });
    await run(["stack", "init", stack]);
    await run(["config", "set", "helpdesk:baseUrl", emulator.url, "--stack", stack]);
    // key=value in one argument: a token may start with "-" (base64url), which `config set` would read as a flag.
    await run(["config", "set-all", "--stack", stack, "--secret", `helpdesk:accessToken=${tokens.accessToken}`]);
  }, 300_000);

  afterAll(async () => {
    if (env) await removeStack(stack, programDir, env);
    await emulator?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("holds the archive's files only: the executable, its CLI and policy pack links, LICENSE", () => {
    const plugin = join(pulumiHome, "plugins", `resource-helpdesk-v${VERSION}`);
    expect(readdirSync(plugin).filter((name) => !name.startsWith(".")).sort()).toEqual(["LICENSE", "pulumi-analyzer-helpdesk", "pulumi-helpdesk", "pulumi-resource-helpdesk"]);
    expect(lstatSync(join(plugin, "pulumi-resource-helpdesk")).isFile()).toBe(true);
    expect(readlinkSync(join(plugin, "pulumi-helpdesk"))).toBe("pulumi-resource-helpdesk");
  });

  it("pulumi-helpdesk plugin install, run from the release's executable, installs that executable alone", async () => {
    const unpacked = join(work, "unpacked");
    const otherHome = join(work, "other-pulumi-home");
    mkdirSync(unpacked);
    mkdirSync(otherHome);
    await runCommand("tar", ["-xzf", join(await sharedRelease(), ARCHIVE), "-C", unpacked], { cwd: work, env: process.env });
    const ran = await runCommand(join(unpacked, "pulumi-helpdesk"), ["plugin", "install"], { cwd: work, env: { ...env, PULUMI_HOME: otherHome } });
    if (ran.code !== 0) throw new Error(shown("pulumi-helpdesk plugin install", ran));
    const plugin = join(otherHome, "plugins", `resource-helpdesk-v${VERSION}`);
    expect(readdirSync(plugin).filter((name) => !name.startsWith("."))).toEqual(["pulumi-resource-helpdesk"]);
    expect(readFileSync(join(plugin, "pulumi-resource-helpdesk")).equals(readFileSync(join(unpacked, "pulumi-resource-helpdesk")))).toBe(true);
  });

  it("pulumi preview runs the cached plugin where no node can be found", async () => {
    const where = await runCommand("/bin/sh", ["-c", "command -v node || command -v npm || echo none"], { cwd: work, env });
    expect(where.stdout.trim()).toBe("none");
    const preview = await run(["preview", "--stack", stack]);
    expect(preview).toMatch(/\+\s+helpdesk:index:Webhook\s+opened\s+create/);
  });
});
