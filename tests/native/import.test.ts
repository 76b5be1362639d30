/**
 * `pulumi-helpdesk import --from` end to end in a TypeScript project on the native SDK (`@pulumi-helpdesk/helpdesk`,
 * this build's dist/native), with the real Pulumi CLI and two emulators on 127.0.0.1 as two help desks:
 *
 * - three webhooks made directly with `POST /v1/webhooks` are adopted under the default provider from a CSV file: the
 *   help desk receives no POST, the state holds their ids, protected, and no url in plain text, the urls are secret
 *   stack config; a `pulumi up` of the program before their declarations are in it fails naming them, and no DELETE
 *   reaches the help desk; the printed TypeScript (with `protect: true`), pasted into the program (its import lines
 *   merged with the program's), makes `pulumi preview --expect-no-changes` pass;
 * - two more, on the second help desk, are adopted unprotected (`--no-protect`) under the explicit provider configured
 *   from `eu:*` (`--namespace eu`, the JSON form on standard input); before that provider is in the stack the command
 *   refuses and says how to declare it;
 * - a rerun skips what is adopted; bad files (a url in any column, header or key among them) end with exit 2, a
 *   message naming the problem and no piece of a url, and the state file as it was; so does a plain-text or gapped
 *   url list in config; `pulumi refresh` after a webhook was deleted in the help desk warns once per provider;
 * - an import interrupted with SIGINT, one with SIGTERM (`--no-protect`) and one with SIGHUP while `pulumi import` runs (held
 *   deterministically: the plugin it starts waits for the test) ends by that signal and leaves no url in any file
 *   under TMPDIR, and no unprotected row; with `--no-protect`, a `pulumi import` that fails after writing its row
 *   leaves it protected; a run to the end then adopts the rest and lifts the protection;
 * - `pulumi destroy`, after `pulumi state unprotect --all`, deletes exactly the adopted webhooks, each on its own help
 *   desk.
 */

import { randomBytes } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { registeredUrl } from "../../kernel/delivery-token.js";
import { nodejsSdkPackage } from "../../kernel/names.js";
import { SECRET_SIG, SIG_KEY, stateValue } from "../../kernel/pulumi-wire.js";
import { required } from "../../kernel/required.js";
import { runCommand, shown, waitFor } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import {
  createDirectly,
  creations,
  csvOf,
  deletions,
  type ExistingWebhook,
  expectAdoptedInState,
} from "../support/adoption.js";
import { startCli } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { localPluginIn } from "../support/examples.js";
import { typescriptProviderBlock } from "../support/provider-programs.js";
import {
  cliEnvOf,
  configAsLoginWrites,
  createTestStack,
  pulumiAvailable,
  readStateFile,
  type TestStack,
} from "../support/pulumi.js";

const project = "helpdesk-adopt";

/** The program before any adoption: the explicit provider of the `eu:*` settings (the variable `eu`). */
const PROVIDER_PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Provider } from "${nodejsSdkPackage()}";

${typescriptProviderBlock({ resource: "eu", variable: "eu", config: "euConfig", namespace: "eu" }).join("\n")}
`;

/**
 * A program with printed declarations added as their preface says: the import lines merged into the program's, and the
 * line that reads the urls once per program.
 */
function withDeclarations(program: string, printed: string): string {
  const lines = printed
    .split("\n")
    .filter((line) => !program.split("\n").includes(line) || line.trim() === "" || line.startsWith("//"));
  const imports = lines.filter((line) => line.startsWith("import "));
  return `${[...imports, program, ...lines.filter((line) => !line.startsWith("import "))].join("\n")}\n`;
}

/** The adopted webhooks of a state file, by id: their URN and whether they are protected. */
function adoptedResources(state: string): Map<string, { urn: string; protect: boolean }> {
  const resources = (
    JSON.parse(state) as {
      checkpoint: { latest: { resources: Array<{ urn: string; type: string; id?: string; protect?: boolean }> } };
    }
  ).checkpoint.latest.resources;
  return new Map(
    resources
      .filter((resource) => resource.type === "helpdesk:index:Webhook")
      .map((resource) => [
        required(resource.id, `the id of ${resource.urn}`),
        { urn: resource.urn, protect: resource.protect ?? false },
      ]),
  );
}

/** Every regular file under a folder (symbolic links not followed; FIFOs and sockets, which hold nothing on disk, left out). */
function regularFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isDirectory()) return regularFiles(path);
    return stats?.isFile() ? [path] : [];
  });
}

/** The files under TMPDIR that hold any of `pieces` (each url's path and query). */
function filesHolding(pieces: readonly string[]): string[] {
  return regularFiles(tmpdir()).filter((path) => {
    const content = readFileSync(path);
    return pieces.some((piece) => content.includes(piece));
  });
}

/** The private folders of `pulumi-helpdesk import` under TMPDIR. */
const importFolders = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith("helpdesk-import-"));

/**
 * A TypeScript project folder outside the repository that resolves `@pulumi/pulumi` and the native SDK as an installed
 * project would: node_modules holds links to this checkout's dependencies and `@pulumi-helpdesk/helpdesk` → dist/native.
 */
function makeProject(dir: string): void {
  const modules = join(dir, "node_modules");
  const [scope = ""] = nodejsSdkPackage().split("/");
  mkdirSync(join(modules, scope), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry !== scope) symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
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
  const clientNamed = (name: string) => ({
    clientId: `${name}-client`,
    clientSecret: `${name}-client-secret-value`,
    redirectUri: "http://127.0.0.1:1/callback",
    name,
  });
  const clients = [clientNamed("home"), clientNamed("eu")] as const;
  const emulators: RunningEmulator[] = [];
  /** The two help desks, the default provider's and eu's: an emulator and its client's access token (beforeAll). */
  let homeDesk: { emulator: RunningEmulator; token: string };
  let euDesk: { emulator: RunningEmulator; token: string };
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
  const pulumi = (args: string[]) =>
    runCommand("pulumi", [...args, "--stack", test.stack.name, "--non-interactive"], { cwd: dir, env });
  const state = (): string => readStateFile(test, project);

  beforeAll(async () => {
    const deskOf = async (client: (typeof clients)[number]) => {
      const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
      emulators.push(emulator);
      return { emulator, token: (await signIn({ baseUrl: emulator.url, ...client })).accessToken };
    };
    homeDesk = await deskOf(clients[0]);
    euDesk = await deskOf(clients[1]);
    dir = mkdtempSync(join(tmpdir(), "helpdesk-adopt-"));
    makeProject(dir);
    test = await createTestStack(dir, {
      ...configAsLoginWrites(homeDesk.emulator.url, clients[0], { accessToken: homeDesk.token }),
      ...configAsLoginWrites(euDesk.emulator.url, clients[1], { accessToken: euDesk.token }, "eu"),
    });
    env = cliEnvOf(test);
    home = await createDirectly(homeDesk.emulator, homeDesk.token, [
      { event: "ticket_opened", url: "https://hooks.example.test/home/opened?token=adopt-secret-1" },
      { event: "ticket_closed", url: "https://user:adopt-secret-2@hooks.example.test/home/closed" },
      { event: "customer_replied", url: "https://hooks.example.test/home/adopt-secret-3" },
    ]);
    [bystander] = (await createDirectly(homeDesk.emulator, homeDesk.token, [
      { event: "note_added", url: "https://hooks.example.test/home/not-listed" },
    ])) as [ExistingWebhook];
    eu = await createDirectly(euDesk.emulator, euDesk.token, [
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
    const ran = await cli(
      ["import", "--stack", test.stack.name, "--namespace", "eu", "--from", "-"],
      JSON.stringify(eu),
    );
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain("has no explicit provider configured from eu:* yet");
    expect(ran.stderr).toContain("run `pulumi up`, then run this command again");
    expect(ran.stderr).toContain('new Provider("eu"');
    const up = await test.stack.up();
    expect(up.summary.result).toBe("succeeded");
  });

  it("adopts three webhooks from a CSV file under the default provider: no POST, ids in the state, no url in plain text", async () => {
    const posts = await creations(homeDesk.emulator);
    writeFileSync(join(dir, "webhooks.csv"), csvOf(home));
    const ran = await cli(["import", "--stack", test.stack.name, "--from", "webhooks.csv"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("= 3 imported");
    expect(ran.stderr).toContain("adopted 3 webhooks, protected; the help desk received no request");
    expect(await creations(homeDesk.emulator)).toBe(posts);
    expectAdoptedInState(state(), home);
    // The urls went to secret stack config, not into the printed code.
    const config = await test.stack.getAllConfig();
    expect(config[`${project}:helpdeskWebhookUrls`]).toEqual({
      value: home.map((hook) => hook.url).join(" "),
      secret: true,
    });
    for (const hook of home) expect(`${ran.stdout}${ran.stderr}`).not.toContain(hook.url);
    expect(ran.stdout).toContain(`import { Webhook } from "${nodejsSdkPackage()}";`);
    // Protected, as pulumi import protects, and declared so.
    const adopted = adoptedResources(state());
    expect(home.map((hook) => adopted.get(hook.id)?.protect)).toEqual([true, true, true]);
    expect(ran.stdout).toContain("urls[0]!) }, { protect: true });");

    // A pulumi up before the declarations are in the program (CI on the main branch) fails, naming them; the help
    // desk gets no DELETE and keeps them.
    const deletes = await deletions(homeDesk.emulator);
    const up = await pulumi(["up", "--yes", "--skip-preview"]);
    expect(up.code, shown("pulumi up", up)).not.toBe(0);
    for (const hook of home)
      expect(`${up.stdout}${up.stderr}`).toContain(required(adopted.get(hook.id), `the adopted ${hook.id}`).urn);
    expect(`${up.stdout}${up.stderr}`).toMatch(/protect/);
    expect(await deletions(homeDesk.emulator)).toBe(deletes);
    const held = (await heldWebhooks(homeDesk.emulator)).map((hook) => hook.id);
    for (const hook of home) expect(held).toContain(hook.id);
    expectAdoptedInState(state(), home);

    program = withDeclarations(program, ran.stdout);
    writeFileSync(join(dir, "index.ts"), program);
    const preview = await pulumi(["preview", "--expect-no-changes"]);
    expect(preview.code, shown("pulumi preview --expect-no-changes", preview)).toBe(0);
  });

  it("adopts two webhooks of the second help desk from JSON on stdin under the explicit provider (--namespace eu)", async () => {
    const posts = await creations(euDesk.emulator);
    const ran = await cli(
      ["import", "--stack", test.stack.name, "--namespace", "eu", "--no-protect", "--from", "-"],
      JSON.stringify(eu.map(({ id, event, url }, at) => ({ id, event, url, name: `eu-${at}` }))),
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("adopted 2 webhooks; the help desk received no request");
    expect(await creations(euDesk.emulator)).toBe(posts);
    expect(ran.stdout).toContain(
      'const eu0 = new Webhook("eu-0", { event: "agent_invited", url: helpdeskWebhookUrls.apply((urls) => urls[3]!) }, { provider: eu });',
    );
    expectAdoptedInState(state(), eu);
    const adopted = adoptedResources(state());
    expect(eu.map((hook) => adopted.get(hook.id)?.protect)).toEqual([false, false]);
    expect(home.map((hook) => adopted.get(hook.id)?.protect)).toEqual([true, true, true]);
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
      [
        "unknown event",
        csvOf([{ ...other, event: "ticket_open" }]),
        /row 1: event "ticket_open" is not a help-desk event/,
      ],
      [
        "bad url",
        csvOf([{ ...other, url: "ftp://hooks.example.test/adopt-secret-x" }]),
        /row 1: url must use http or https/,
      ],
      ["missing column", "id,event\nwh_1,ticket_opened\n", /the header lacks the column url/],
      [
        "duplicate id",
        csvOf([other, { ...other, event: "ticket_closed" }]),
        /row 2: id "wh_elsewhere" is also on row 1/,
      ],
      [
        "id already in the stack under another name",
        `id,event,url,name\n${required(home[0], "a home webhook").id},ticket_opened,${required(home[0], "a home webhook").url},renamed\n`,
        /row 1: id "[^"]+" is already in stack "[^"]+" as helpdesk:index:Webhook "ticket_opened-/,
      ],
      ["empty file", "", /the file is empty/],
      ["10 MB of random bytes", randomBytes(10 * 1024 * 1024), /the file is not UTF-8 text/],
    ];
    // A url in the wrong place: its path and query must not appear, whichever column, header cell or key holds it.
    const slack =
      "https://hook:pa55word-x@hooks.example.test/services/T0AAAAAAA/B0BBBBBBB/adopt-secret-slack?token=adopt-query";
    const pieces = ["pa55word-x", "services", "T0AAAAAAA", "B0BBBBBBB", "adopt-secret-slack", "adopt-query"];
    const hiddenUrl = /\(a value that looks like a url, not shown\)/;
    cases.push(
      ["url in the id column", `url,event,id\nwh_1,ticket_opened,${slack}\n`, hiddenUrl],
      ["url in the event column", `id,url,event\nwh_1,ticket_opened,${slack}\n`, hiddenUrl],
      [
        "url in the name column",
        `id,event,url,name\nwh_1,ticket_opened,https://hooks.example.test/ok,${slack}\n`,
        hiddenUrl,
      ],
      [
        "no header row",
        `wh_1,ticket_opened,${slack}\n`,
        /the header names unknown columns "wh_1", "ticket_opened", \(a value that looks like a url, not shown\)/,
      ],
      [
        "a url as a JSON key",
        JSON.stringify([{ id: "wh_1", event: "ticket_opened", url: "https://hooks.example.test/ok", [slack]: "x" }]),
        hiddenUrl,
      ],
    );
    for (const [what, content, message] of cases) {
      writeFileSync(join(dir, "bad.csv"), content);
      const ran = await cli(["import", "--stack", test.stack.name, "--from", "bad.csv"]);
      expect(ran.code, `${what}: ${ran.stderr}`).toBe(2);
      expect(ran.stderr, what).toMatch(message);
      for (const piece of ["adopt-secret", ...pieces]) expect(`${ran.stdout}${ran.stderr}`, what).not.toContain(piece);
      expect(state(), what).toBe(before);
    }
  });

  it("a url list in config that is plain text, or has an empty item, is refused with exit 2, never shown nor reused", async () => {
    const key = `${project}:helpdeskWebhookUrls`;
    const kept = (await test.stack.getConfig(key)).value;
    const before = state();
    writeFileSync(
      join(dir, "more.csv"),
      csvOf([{ id: "wh_more", event: "ticket_opened", url: "https://hooks.example.test/more/adopt-secret-more" }]),
    );
    try {
      await test.stack.setConfig(key, { value: kept, secret: false });
      const plain = await cli(["import", "--stack", test.stack.name, "--from", "more.csv"]);
      expect(plain.code, plain.stderr).toBe(2);
      expect(plain.stderr).toContain(`the stack config ${key} of stack "${test.stack.name}" is plain text`);
      expect(plain.stderr).toContain(`pulumi config set --secret ${key}`);
      await test.stack.setConfig(key, { value: kept.replace(" ", "  "), secret: true });
      const gapped = await cli(["import", "--stack", test.stack.name, "--from", "more.csv"]);
      expect(gapped.code, gapped.stderr).toBe(2);
      expect(gapped.stderr).toContain("has an empty item at position 2");
      for (const ran of [plain, gapped])
        for (const hook of [...home, ...eu]) expect(`${ran.stdout}${ran.stderr}`).not.toContain(hook.url);
    } finally {
      await test.stack.setConfig(key, { value: kept, secret: true });
    }
    expect((await test.stack.getConfig(key)).value).toBe(kept);
    expect(state()).toBe(before);
  });

  it("refresh after a webhook was deleted in the help desk: exit 0, one warning per provider, no url, the state as it was", async () => {
    const deleted = await fetch(
      `${homeDesk.emulator.url}/v1/webhooks/${required(home[1], "the second home webhook").id}`,
      {
        method: "DELETE",
        headers: { authorization: `Bearer ${homeDesk.token}` },
      },
    );
    expect(deleted.status).toBe(204);
    // The webhooks, which the provider's Read answers for (the engine itself drops an explicit provider's
    // propertyDependencies when it refreshes the provider resource).
    const resources = async () =>
      ((await test.stack.exportStack()).deployment as { resources: Array<{ type: string }> }).resources.filter(
        (r) => r.type === "helpdesk:index:Webhook",
      );
    const before = await resources();
    const events: EngineEvent[] = [];
    const result = await test.stack.refresh({ onEvent: (event) => events.push(event) });
    expect(result.summary.result).toBe("succeeded");
    const warnings = events.flatMap((event) =>
      event.diagnosticEvent?.message.includes("refresh cannot ask the help desk") ? [event.diagnosticEvent] : [],
    );
    expect(
      warnings
        .map((warning) =>
          warning.message
            .match(/(the default helpdesk provider|the helpdesk provider "eu") kept (\d) webhooks/)
            ?.slice(1),
        )
        .sort(),
    ).toEqual([
      ["the default helpdesk provider", "3"],
      ['the helpdesk provider "eu"', "2"],
    ]);
    for (const hook of [...home, ...eu]) expect(`${result.stdout}${result.stderr}`).not.toContain(hook.url);
    // Secrets are compared decrypted: the engine encrypts them anew (fresh nonces) whenever it writes the state.
    expect(await resources()).toEqual(before);
  });

  it("a webhook registered with a delivery token in its url is adopted with it: the token only encrypted in the state, in no output; the printed program's preview and up change nothing", async () => {
    const token = `hdt_${randomBytes(32).toString("base64url")}`;
    const declaredUrl = "https://hooks.example.test/home/token-adopted?team=adopt-secret-t";
    const [tokened] = (await createDirectly(homeDesk.emulator, homeDesk.token, [
      { event: "ticket_priority_changed", url: registeredUrl(declaredUrl, "ticket_priority_changed", token) },
    ])) as [ExistingWebhook];
    const urlsKey = `${project}:helpdeskWebhookUrls`;
    const urlsBefore = (await test.stack.getConfig(urlsKey)).value;
    const before = state();
    // A row whose url's event is another than its own is refused, showing neither url nor token.
    writeFileSync(join(dir, "tokens.csv"), csvOf([{ ...tokened, event: "ticket_closed" }]));
    const refused = await cli(["import", "--stack", test.stack.name, "--from", "tokens.csv"]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      'row 1: the url carries a delivery token (its helpdesk_token query parameter), adopted with the webhook, so its helpdesk_event query parameter must be the row\'s event "ticket_closed"',
    );
    expect(state()).toBe(before);

    const posts = await creations(homeDesk.emulator);
    const deletes = await deletions(homeDesk.emulator);
    writeFileSync(join(dir, "tokens.csv"), csvOf([tokened]));
    const ran = await cli(["import", "--stack", test.stack.name, "--from", "tokens.csv"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("adopted 1 webhook, protected; the help desk received no request");
    expect(ran.stdout).toContain(
      "url: helpdeskWebhookUrls.apply((urls) => urls[5]!), useDeliveryToken: true, deliveryToken: helpdeskDeliveryTokens.apply((tokens) => tokens[0]!) }, { protect: true });",
    );
    // The url without the token's query joins the url list; the token goes to its own secret list.
    const config = await test.stack.getAllConfig();
    expect(config[urlsKey]).toEqual({ value: `${urlsBefore} ${declaredUrl}`, secret: true });
    expect(config[`${project}:helpdeskDeliveryTokens`]).toEqual({ value: token, secret: true });
    // Recorded as the provider records a webhook it created with a token: the secrets decrypted here...
    const adopted = (
      (await test.stack.exportStack()).deployment as {
        resources: Array<{ id?: string; outputs?: Record<string, unknown> }>;
      }
    ).resources.find((resource) => resource.id === tokened.id);
    const outputs = adopted?.outputs ?? {};
    expect(Object.fromEntries(Object.entries(outputs).map(([key, value]) => [key, stateValue(value)]))).toEqual({
      event: "ticket_priority_changed",
      url: declaredUrl,
      useDeliveryToken: true,
      deliveryToken: token,
      registeredUrl: tokened.url,
      state: "unknown",
    });
    for (const key of ["url", "deliveryToken", "registeredUrl"])
      expect(outputs[key], key).toHaveProperty(SIG_KEY, SECRET_SIG);
    // ...and only encrypted in the state file and in `pulumi stack export` without --show-secrets.
    const exported = await pulumi(["stack", "export"]);
    expect(exported.code, shown("pulumi stack export", exported)).toBe(0);
    for (const text of [state(), exported.stdout]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain("adopt-secret-t");
    }

    program = withDeclarations(program, ran.stdout);
    writeFileSync(join(dir, "index.ts"), program);
    const preview = await pulumi(["preview", "--expect-no-changes"]);
    expect(preview.code, shown("pulumi preview --expect-no-changes", preview)).toBe(0);
    const up = await pulumi(["up", "--yes", "--expect-no-changes"]);
    expect(up.code, shown("pulumi up --expect-no-changes", up)).toBe(0);
    for (const output of [refused, ran, exported, preview, up])
      for (const piece of [token, "adopt-secret-t"]) expect(`${output.stdout}${output.stderr}`).not.toContain(piece);
    // The help desk holds the same registration, and was asked nothing.
    expect(await creations(homeDesk.emulator)).toBe(posts);
    expect(await deletions(homeDesk.emulator)).toBe(deletes);
    expect((await heldWebhooks(homeDesk.emulator)).find((hook) => hook.id === tokened.id)?.url).toBe(tokened.url);
  });

  describe("interrupted while pulumi import runs", () => {
    /** The webhooks of each interrupted run (each its own, so each run starts a `pulumi import`). */
    const interrupted: Record<"SIGINT" | "SIGTERM" | "SIGHUP", ExistingWebhook[]> = {
      SIGINT: [],
      SIGTERM: [],
      SIGHUP: [],
    };
    /** The webhook of the run whose pulumi import fails after writing its row. */
    let failedMidway: ExistingWebhook[];
    /** The pieces of their urls that must be in no file: paths and queries. */
    const pieces = [
      "interrupt-secret-int",
      "intr-query-int",
      "interrupt-secret-term",
      "intr-query-term",
      "interrupt-secret-hup",
      "interrupt-secret-failed",
    ];
    /**
     * Holds `pulumi import` inside its run: the Node.js that the plugin's launcher starts (`PULUMI_HELPDESK_NODE`, only
     * for this run) first says so, then waits until the test lets it go.
     */
    const holdPlugin = (): { env: NodeJS.ProcessEnv; started: () => boolean; release: () => void } => {
      const hold = mkdtempSync(join(dir, "hold-plugin-"));
      const node = join(hold, "node");
      writeFileSync(
        node,
        `#!/bin/sh\n: > '${hold}/started'\nwhile [ ! -e '${hold}/go' ]; do sleep 0.05; done\nexec '${process.execPath}' "$@"\n`,
        { mode: 0o755 },
      );
      return {
        env: { PULUMI_HELPDESK_NODE: node },
        started: () => existsSync(join(hold, "started")),
        release: () => writeFileSync(join(hold, "go"), ""),
      };
    };

    beforeAll(async () => {
      interrupted.SIGINT = await createDirectly(homeDesk.emulator, homeDesk.token, [
        { event: "agent_replied", url: "https://hooks.example.test/home/interrupt-secret-int?token=intr-query-int" },
        { event: "ticket_tagged", url: "https://hooks.example.test/home/interrupt-secret-int-2" },
      ]);
      interrupted.SIGTERM = await createDirectly(homeDesk.emulator, homeDesk.token, [
        { event: "ticket_moved", url: "https://hooks.example.test/home/interrupt-secret-term?token=intr-query-term" },
      ]);
      interrupted.SIGHUP = await createDirectly(homeDesk.emulator, homeDesk.token, [
        { event: "ticket_assigned", url: "https://hooks.example.test/home/interrupt-secret-hup" },
      ]);
      failedMidway = await createDirectly(homeDesk.emulator, homeDesk.token, [
        { event: "customer_added", url: "https://hooks.example.test/home/interrupt-secret-failed" },
      ]);
    });

    // SIGHUP (a closed terminal) reaches pulumi as SIGTERM, which it cancels on (SIGHUP would kill it at once).
    for (const [signal, flags] of [
      ["SIGINT", []],
      ["SIGTERM", ["--no-protect"]],
      ["SIGHUP", []],
    ] as const) {
      it(`${signal}${flags.length ? ` (${flags.join(" ")})` : ""}: the command ends by it, no file under TMPDIR holds a url, no row is left unprotected`, async () => {
        const hold = holdPlugin();
        // The file on standard input: the test's own copy of the urls is in no file either.
        const run = startCli(["import", "--stack", test.stack.name, ...flags, "--from", "-"], {
          dir,
          env: { ...env, ...hold.env },
        });
        run.child.stdin.end(csvOf(interrupted[signal]));
        const ended = new Promise<NodeJS.Signals | null>((resolve) => run.child.on("exit", (_code, by) => resolve(by)));
        try {
          await waitFor("pulumi import to start the plugin", hold.started, 120_000);
          // The import file is a FIFO: what pulumi import read of it never was on a disk.
          const [folder] = importFolders();
          expect(folder).toMatch(new RegExp(`^helpdesk-import-${run.child.pid}-`));
          expect(lstatSync(join(tmpdir(), required(folder, "the import folder"), "import.json")).isFIFO()).toBe(true);
          run.child.kill(signal);
          await waitFor("the import folder removed", () => importFolders().length === 0, 30_000);
        } finally {
          hold.release();
        }
        const by = await ended;
        const { stderr } = await run.done;
        expect(by, stderr).toBe(signal);
        // Passed on once: pulumi cancelled (a second signal would have terminated it).
        expect(stderr).toMatch(signal === "SIGINT" ? /\^C received; cancelling/ : /SIGTERM received; cancelling/);
        expect(stderr).not.toMatch(/received; terminating/);
        expect(filesHolding(pieces)).toEqual([]);
        expect(importFolders()).toEqual([]);
        // Whatever the interrupted import wrote is protected, --no-protect or not.
        const adopted = adoptedResources(state());
        for (const hook of interrupted[signal])
          if (adopted.has(hook.id)) expect(adopted.get(hook.id)?.protect, hook.id).toBe(true);
      });
    }

    it("--no-protect, and pulumi import fails after writing its row: exit 1, and the row it wrote is protected", async () => {
      // A failure after the state is written (one row of many failing, the backend lost), made certain: the real
      // pulumi runs, then its import is reported failed.
      const shim = mkdtempSync(join(dir, "failing-pulumi-"));
      const real = (await runCommand("/bin/sh", ["-c", "command -v pulumi"], { cwd: dir, env })).stdout.trim();
      expect(real).not.toBe("");
      writeFileSync(
        join(shim, "pulumi"),
        `#!/bin/sh\n'${real}' "$@" || exit\nif [ "$1" = import ]; then echo "the import is reported failed" >&2; exit 1; fi\n`,
        { mode: 0o755 },
      );
      const run = startCli(["import", "--stack", test.stack.name, "--no-protect", "--from", "-"], {
        dir,
        env: { ...env, PATH: `${shim}${delimiter}${env.PATH}` },
      });
      run.child.stdin.end(csvOf(failedMidway));
      const ran = await run.done;
      expect(ran.code, ran.stderr).toBe(1);
      expect(ran.stderr).toContain("any webhook it adopted before it failed is protected in the state");
      expect(adoptedResources(state()).get(required(failedMidway[0], "the failed webhook").id)?.protect).toBe(true);
      expect(importFolders()).toEqual([]);
    });

    it("run to the end with --no-protect, it adopts the rest and lifts the protection of them all; stale folders of killed runs go first", async () => {
      // Folders as a killed run leaves them: of a process that is gone (Linux pids stay below 2^22, the largest
      // pid_max), and of a version without the pid in the name.
      const stale = [`helpdesk-import-${2 ** 22 + 1}-AbCdEf`, "helpdesk-import-XyZ123"];
      const live = `helpdesk-import-${process.pid}-LiVe00`;
      for (const name of [...stale, live]) {
        mkdirSync(join(tmpdir(), name), { mode: 0o700 });
        writeFileSync(join(tmpdir(), name, "import.json"), "https://hooks.example.test/stale/interrupt-secret-stale", {
          mode: 0o600,
        });
      }
      const all = [...interrupted.SIGINT, ...interrupted.SIGTERM, ...interrupted.SIGHUP, ...failedMidway];
      const ran = await cli(["import", "--stack", test.stack.name, "--no-protect", "--from", "-"], csvOf(all));
      expect(ran.code, ran.stderr).toBe(0);
      // A folder of a live process (another run of the command) is left alone.
      expect(importFolders()).toEqual([live]);
      rmSync(join(tmpdir(), live), { recursive: true });
      const adopted = adoptedResources(state());
      expect(all.map((hook) => adopted.get(hook.id)?.protect)).toEqual([false, false, false, false, false]);
      expect(home.map((hook) => adopted.get(hook.id)?.protect)).toEqual([true, true, true]);
      expect(filesHolding(pieces)).toEqual([]);
    });
  });

  it("destroy, after pulumi state unprotect --all, deletes exactly the adopted webhooks, each from its own help desk", async () => {
    const unprotect = await pulumi(["state", "unprotect", "--all", "--yes"]);
    expect(unprotect.code, shown("pulumi state unprotect --all", unprotect)).toBe(0);
    const result = await test.stack.destroy();
    expect(result.summary.result).toBe("succeeded");
    expect((await heldWebhooks(homeDesk.emulator)).map((hook) => hook.id)).toEqual([bystander.id]);
    expect(await heldWebhooks(euDesk.emulator)).toEqual([]);
  });
});
