/**
 * `pulumi-helpdesk import --from` end to end in a TypeScript project on the native SDK (`@pulumi-helpdesk/helpdesk`,
 * this build's dist/native), with the real Pulumi CLI and two emulators on 127.0.0.1 as two help desks:
 *
 * - three webhooks made directly with `POST /v1/webhooks` are adopted under the default provider from a CSV file: the
 *   help desk receives no POST, the state holds their ids and no url in plain text, the urls are secret stack config;
 *   the printed TypeScript, pasted into the program (its import lines merged with the program's), makes `pulumi
 *   preview --expect-no-changes` pass;
 * - two more, on the second help desk, are adopted under the explicit provider configured from `eu:*`
 *   (`--namespace eu`, the JSON form on standard input); before that provider is in the stack the command refuses
 *   and says how to declare it;
 * - a rerun skips what is adopted; bad files end with exit 2, a message naming the problem, and the state file as it
 *   was; `pulumi refresh` after a webhook was deleted in the help desk warns once per provider; `pulumi destroy`
 *   deletes exactly the adopted webhooks, each on its own help desk.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { startEmulator, type RunningEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { nodejsSdkPackage } from "../../kernel/names.js";
import { createDirectly, creations, csvOf, expectAdoptedInState, type ExistingWebhook } from "../support/adoption.js";
import { startCli } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { localPluginIn } from "../support/examples.js";
import { repoRoot } from "../support/package.js";
import { configAsLoginWrites, createTestStack, pulumiAvailable, readStateFile, type TestStack } from "../support/pulumi.js";
import { runCommand, shown } from "../support/processes.js";

const project = "helpdesk-adopt";

/** The program before any adoption: the explicit provider of the `eu:*` settings (the variable `eu`). */
const PROVIDER_PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Provider } from "${nodejsSdkPackage()}";

const euConfig = new pulumi.Config("eu");
const eu = new Provider("eu", {
  baseUrl: euConfig.require("baseUrl"),
  clientId: euConfig.require("clientId"),
  tokenExpiresAt: euConfig.get("tokenExpiresAt"),
  accessToken: euConfig.requireSecret("accessToken"),
  refreshToken: euConfig.getSecret("refreshToken"),
  clientSecret: euConfig.getSecret("clientSecret"),
});
`;

/**
 * A program with printed declarations added as their preface says: the import lines merged into the program's, and the
 * line that reads the urls once per program.
 */
function withDeclarations(program: string, printed: string): string {
  const lines = printed.split("\n").filter((line) => !program.split("\n").includes(line) || line.trim() === "" || line.startsWith("//"));
  const imports = lines.filter((line) => line.startsWith("import "));
  return `${[...imports, program, ...lines.filter((line) => !line.startsWith("import "))].join("\n")}\n`;
}

/**
 * A TypeScript project folder outside the repository that resolves `@pulumi/pulumi` and the native SDK as an installed
 * project would: node_modules holds links to this checkout's dependencies and `@pulumi-helpdesk/helpdesk` → dist/native.
 */
function makeProject(dir: string): void {
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, nodejsSdkPackage().split("/")[0]!), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry !== nodejsSdkPackage().split("/")[0]) symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  symlinkSync(join(repoRoot, "dist", "native"), join(modules, nodejsSdkPackage()));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: project, private: true }));
  const plugin = localPluginIn(dir);
  writeFileSync(
    join(dir, "Pulumi.yaml"),
    `name: ${project}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.ts\nplugins:\n  providers:\n    - name: helpdesk\n      path: ${plugin}\n`,
  );
  writeFileSync(join(dir, "index.ts"), PROVIDER_PROGRAM);
}

describe.skipIf(!pulumiAvailable())("pulumi-helpdesk import --from in a TypeScript project (native SDK)", () => {
  const clients = ["home", "eu"].map((name) => ({ clientId: `${name}-client`, clientSecret: `${name}-client-secret-value`, redirectUri: "http://127.0.0.1:1/callback", name }));
  const emulators: RunningEmulator[] = [];
  const tokens: string[] = [];
  let dir: string;
  let test: TestStack;
  let env: NodeJS.ProcessEnv;
  let home: ExistingWebhook[];
  let eu: ExistingWebhook[];
  /** A webhook of the first help desk that no file lists: destroy must leave it. */
  let bystander: ExistingWebhook;
  let program = PROVIDER_PROGRAM;

  /** Runs the CLI in the project, with `stdin` on its standard input. */
  const cli = async (args: string[], stdin = ""): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const run = startCli(args, { dir, env });
    run.child.stdin.end(stdin);
    return run.done;
  };
  const pulumi = (args: string[]) => runCommand("pulumi", [...args, "--stack", test.stack.name, "--non-interactive"], { cwd: dir, env });
  const state = (): string => readStateFile(test, project);

  beforeAll(async () => {
    for (const client of clients) {
      const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
      emulators.push(emulator);
      tokens.push((await signIn({ baseUrl: emulator.url, ...client })).accessToken);
    }
    dir = mkdtempSync(join(tmpdir(), "helpdesk-adopt-"));
    makeProject(dir);
    const [first, second] = emulators as [RunningEmulator, RunningEmulator];
    test = await createTestStack(dir, {
      ...configAsLoginWrites(first.url, clients[0]!, { accessToken: tokens[0]! }),
      ...configAsLoginWrites(second.url, clients[1]!, { accessToken: tokens[1]! }, "eu"),
    });
    env = { ...process.env, ...test.stack.workspace.envVars, CI: "true", NO_COLOR: "1" };
    for (const name of ["HELPDESK_BASE_URL", "HELPDESK_CLIENT_ID", "HELPDESK_CLIENT_SECRET", "HELPDESK_REDIRECT_URI", "HELPDESK_ACCESS_TOKEN"]) delete env[name];
    home = await createDirectly(first, tokens[0]!, [
      { event: "ticket_opened", url: "https://hooks.example.test/home/opened?token=adopt-secret-1" },
      { event: "ticket_closed", url: "https://user:adopt-secret-2@hooks.example.test/home/closed" },
      { event: "customer_replied", url: "https://hooks.example.test/home/adopt-secret-3" },
    ]);
    [bystander] = await createDirectly(first, tokens[0]!, [{ event: "note_added", url: "https://hooks.example.test/home/not-listed" }]) as [ExistingWebhook];
    eu = await createDirectly(second, tokens[1]!, [
      { event: "agent_invited", url: "https://hooks.example.test/eu/adopt-secret-4" },
      { event: "ticket_started", url: "https://hooks.example.test/eu/adopt-secret-5" },
    ]);
  }, 120_000);

  afterAll(async () => {
    await test?.stack.destroy().catch(() => undefined);
    await test?.dispose();
    for (const emulator of emulators) await emulator.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("--namespace eu before the stack has that provider: exit 2, how to declare it, nothing changed", async () => {
    const ran = await cli(["import", "--stack", test.stack.name, "--namespace", "eu", "--from", "-"], JSON.stringify(eu));
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain("has no explicit provider configured from eu:* yet");
    expect(ran.stderr).toContain("run `pulumi up`, then run this command again");
    expect(ran.stderr).toContain('new Provider("eu"');
    const up = await test.stack.up();
    expect(up.summary.result).toBe("succeeded");
  });

  it("adopts three webhooks from a CSV file under the default provider: no POST, ids in the state, no url in plain text", async () => {
    const posts = await creations(emulators[0]!);
    writeFileSync(join(dir, "webhooks.csv"), csvOf(home));
    const ran = await cli(["import", "--stack", test.stack.name, "--from", "webhooks.csv"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("= 3 imported");
    expect(await creations(emulators[0]!)).toBe(posts);
    expectAdoptedInState(state(), home);
    // The urls went to secret stack config, not into the printed code.
    const config = await test.stack.getAllConfig();
    expect(config[`${project}:helpdeskWebhookUrls`]).toEqual({ value: home.map((hook) => hook.url).join(" "), secret: true });
    for (const hook of home) expect(`${ran.stdout}${ran.stderr}`).not.toContain(hook.url);
    expect(ran.stdout).toContain(`import { Webhook } from "${nodejsSdkPackage()}";`);
    // Not protected without --protect.
    const resources = (JSON.parse(state()) as { checkpoint: { latest: { resources: Array<{ type: string; protect?: boolean }> } } }).checkpoint.latest.resources;
    expect(resources.filter((resource) => resource.type === "helpdesk:index:Webhook").every((resource) => !resource.protect)).toBe(true);
    program = withDeclarations(program, ran.stdout);
    writeFileSync(join(dir, "index.ts"), program);
    const preview = await pulumi(["preview", "--expect-no-changes"]);
    expect(preview.code, shown("pulumi preview --expect-no-changes", preview)).toBe(0);
  });

  it("adopts two webhooks of the second help desk from JSON on stdin under the explicit provider (--namespace eu)", async () => {
    const posts = await creations(emulators[1]!);
    const ran = await cli(["import", "--stack", test.stack.name, "--namespace", "eu", "--from", "-"], JSON.stringify(eu.map(({ id, event, url }, at) => ({ id, event, url, name: `eu-${at}` }))));
    expect(ran.code, ran.stderr).toBe(0);
    expect(await creations(emulators[1]!)).toBe(posts);
    expect(ran.stdout).toContain('const eu0 = new Webhook("eu-0", { event: "agent_invited", url: helpdeskWebhookUrls.apply((urls) => urls[3]!) }, { provider: eu });');
    expectAdoptedInState(state(), eu);
    program = withDeclarations(program, ran.stdout);
    writeFileSync(join(dir, "index.ts"), program);
    const preview = await pulumi(["preview", "--expect-no-changes"]);
    expect(preview.code, shown("pulumi preview --expect-no-changes", preview)).toBe(0);
  });

  it("a rerun skips the rows adopted before and changes nothing", async () => {
    const before = state();
    const ran = await cli(["import", "--stack", test.stack.name, "--from", "webhooks.csv"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("skipped 3 rows adopted before (rows 1, 2, 3)");
    expect(state()).toBe(before);
  });

  it("bad files end with exit 2 and a message naming the problem; the state is unchanged", async () => {
    const before = state();
    const other = { id: "wh_elsewhere", event: "ticket_opened", url: "https://hooks.example.test/ok" };
    const cases: Array<[string, string | Buffer, RegExp]> = [
      ["unknown event", csvOf([{ ...other, event: "ticket_open" }]), /row 1: event "ticket_open" is not a help-desk event/],
      ["bad url", csvOf([{ ...other, url: "ftp://hooks.example.test/adopt-secret-x" }]), /row 1: url must use http or https/],
      ["missing column", "id,event\nwh_1,ticket_opened\n", /the header lacks the column url/],
      ["duplicate id", csvOf([other, { ...other, event: "ticket_closed" }]), /row 2: id "wh_elsewhere" is also on row 1/],
      ["id already in the stack under another name", `id,event,url,name\n${home[0]!.id},ticket_opened,${home[0]!.url},renamed\n`, /row 1: id "[^"]+" is already in stack "[^"]+" as helpdesk:index:Webhook "ticket_opened-/],
      ["empty file", "", /the file is empty/],
      ["10 MB of random bytes", randomBytes(10 * 1024 * 1024), /the file is not UTF-8 text/],
    ];
    for (const [what, content, message] of cases) {
      writeFileSync(join(dir, "bad.csv"), content);
      const ran = await cli(["import", "--stack", test.stack.name, "--from", "bad.csv"]);
      expect(ran.code, `${what}: ${ran.stderr}`).toBe(2);
      expect(ran.stderr, what).toMatch(message);
      expect(ran.stderr, what).not.toContain("adopt-secret");
      expect(state(), what).toBe(before);
    }
  });

  it("refresh after a webhook was deleted in the help desk: exit 0, one warning per provider, no url, the state as it was", async () => {
    const deleted = await fetch(`${emulators[0]!.url}/v1/webhooks/${home[1]!.id}`, { method: "DELETE", headers: { authorization: `Bearer ${tokens[0]}` } });
    expect(deleted.status).toBe(204);
    // The webhooks, which the provider's Read answers for (the engine itself drops an explicit provider's
    // propertyDependencies when it refreshes the provider resource).
    const resources = async () => ((await test.stack.exportStack()).deployment as { resources: Array<{ type: string }> }).resources.filter((r) => r.type === "helpdesk:index:Webhook");
    const before = await resources();
    const events: EngineEvent[] = [];
    const result = await test.stack.refresh({ onEvent: (event) => events.push(event) });
    expect(result.summary.result).toBe("succeeded");
    const warnings = events.flatMap((event) => (event.diagnosticEvent?.message.includes("refresh cannot ask the help desk") ? [event.diagnosticEvent] : []));
    expect(warnings.map((warning) => warning.message.match(/(the default helpdesk provider|the helpdesk provider "eu") kept (\d) webhooks/)?.slice(1)).sort()).toEqual([
      ['the default helpdesk provider', "3"],
      ['the helpdesk provider "eu"', "2"],
    ]);
    for (const hook of [...home, ...eu]) expect(`${result.stdout}${result.stderr}`).not.toContain(hook.url);
    // Secrets are compared decrypted: the engine encrypts them anew (fresh nonces) whenever it writes the state.
    expect(await resources()).toEqual(before);
  });

  it("destroy deletes exactly the adopted webhooks, each from its own help desk", async () => {
    const result = await test.stack.destroy();
    expect(result.summary.result).toBe("succeeded");
    expect((await heldWebhooks(emulators[0]!)).map((hook) => hook.id)).toEqual([bystander.id]);
    expect(await heldWebhooks(emulators[1]!)).toEqual([]);
  });
});
