/**
 * `pulumi-helpdesk migrate` end to end, with the real Pulumi CLI and the emulator on 127.0.0.1: a TypeScript stack of
 * 20 dynamic `Webhook`s (`pulumi-helpdesk`, five of them with secret urls, two with a delivery token: one minted with a
 * rotation, one given) moves to the native `helpdesk:index:Webhook` (`@pulumi-helpdesk/helpdesk`, this build's dist/native).
 *
 * - `--dry-run` lists the 20 and changes nothing; a `helpdesk:*` setting the native provider would refuse ends the
 *   command with exit 2 and nothing changed;
 * - a failure injected between the two steps (a `pulumi` on PATH whose first `state delete` fails) leaves every
 *   webhook in the state at least once and the help desk untouched; a rerun completes the move: native webhooks
 *   with the same ids, urls as secrets, none dynamic, no `pulumi-nodejs` provider left; the two tokens and their
 *   registered urls carried over as secrets, in no output and encrypted only in the state, the help desk's urls as they were;
 * - the printed program previews with no change; the README's `aliases` (a renamed webhook, one moved into a
 *   component) move them in the state with no request; `pulumi destroy`, after `pulumi state unprotect --all`,
 *   deletes exactly the 20 webhooks;
 * - from the migration on, the emulator receives no request of the API at all until that destroy.
 */

import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { signInAutoApproved as signIn } from "../../emulator-client/index.js";
import { EVENTS } from "../../kernel/events.js";
import { DYNAMIC_WEBHOOK_TYPE, nodejsSdkPackage, WEBHOOK_TYPE } from "../../kernel/names.js";
import { PACKAGE_NAME } from "../../kernel/package-version.js";
import { SECRET_SIG, SIG_KEY, stateValue } from "../../kernel/pulumi-wire.js";
import { required } from "../../kernel/required.js";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { createDirectly, type ExistingWebhook } from "../support/adoption.js";
import { startCli } from "../support/cli.js";
import { emulatorStats, heldWebhooks } from "../support/emulator.js";
import { localPluginIn } from "../support/examples.js";
import {
  cliEnvOf,
  configAsLoginWrites,
  createTestStack,
  pulumiAvailable,
  readStateFile,
  type TestStack,
} from "../support/pulumi.js";

const project = "helpdesk-migrate";

/** The delivery token the program of hook-3 gives (a minted one, of hook-2, is known only after `pulumi up`). */
const GIVEN_TOKEN = `given-token-${randomBytes(16).toString("hex")}`;

/**
 * The 20 webhooks of the dynamic program: every fourth url a secret; hook-2 with a minted delivery token and a rotation,
 * hook-3 with a token of its own.
 */
const HOOKS = Array.from({ length: 20 }, (_, at) => ({
  name: `hook-${at}`,
  event: required(EVENTS[at % EVENTS.length], "an event"),
  url: `https://hooks.example.test/migrate/${at}?token=migrate-secret-${at}`,
  secret: at % 4 === 0,
  ...(at === 2 ? { useDeliveryToken: true, deliveryTokenRotation: "2026-11" } : {}),
  ...(at === 3 ? { deliveryToken: GIVEN_TOKEN } : {}),
}));

/** The program before the migration: the dynamic `Webhook` of `pulumi-helpdesk`. */
const DYNAMIC_PROGRAM = `import * as pulumi from "@pulumi/pulumi";
import { Webhook, type WebhookEvent } from "${PACKAGE_NAME}";

const hooks: Array<{ name: string; event: WebhookEvent; url: string; secret: boolean; useDeliveryToken?: boolean; deliveryTokenRotation?: string; deliveryToken?: string }> = ${JSON.stringify(HOOKS)};
for (const hook of hooks) {
  const { useDeliveryToken, deliveryTokenRotation, deliveryToken } = hook;
  new Webhook(hook.name, {
    event: hook.event,
    url: hook.secret ? pulumi.secret(hook.url) : hook.url,
    ...(useDeliveryToken === undefined ? {} : { useDeliveryToken }),
    ...(deliveryTokenRotation === undefined ? {} : { deliveryTokenRotation }),
    ...(deliveryToken === undefined ? {} : { deliveryToken: pulumi.secret(deliveryToken) }),
  });
}
`;

/**
 * A TypeScript project folder outside the repository that resolves `@pulumi/pulumi`, the dynamic `Webhook`
 * (`pulumi-helpdesk`: this checkout) and the native SDK (`@pulumi-helpdesk/helpdesk` → dist/native) as an installed
 * project would: node_modules holds links to this checkout's dependencies and to those two.
 */
function makeProject(dir: string): void {
  const modules = join(dir, "node_modules");
  const [scope = ""] = nodejsSdkPackage().split("/");
  mkdirSync(join(modules, scope), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry !== scope && !entry.startsWith("."))
      symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  symlinkSync(join(repoRoot, "dist", "native"), join(modules, nodejsSdkPackage()));
  symlinkSync(repoRoot, join(modules, PACKAGE_NAME));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: project, private: true }));
  writeFileSync(
    join(dir, "Pulumi.yaml"),
    `name: ${project}\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: index.ts\nplugins:\n  providers:\n    - name: helpdesk\n      path: ${localPluginIn(dir)}\n`,
  );
  writeFileSync(join(dir, "index.ts"), DYNAMIC_PROGRAM);
}

/** The emulator's count of requests to the help-desk API and its OAuth routes (its own inspection routes left out). */
async function apiRequests(emulator: RunningEmulator): Promise<Record<string, number>> {
  const { byRoute } = await emulatorStats(emulator);
  return Object.fromEntries(Object.entries(byRoute).filter(([route]) => !route.includes("/_emulator")));
}

/** A resource of the state as `pulumi stack export` shows it (the fields checked here). */
interface Resource {
  urn: string;
  type: string;
  id?: string;
  protect?: boolean;
  outputs?: Record<string, unknown>;
}

describe.skipIf(!pulumiAvailable())(
  "pulumi-helpdesk migrate: dynamic Webhooks to the native provider (TypeScript)",
  () => {
    const client = {
      clientId: "migrate-client",
      clientSecret: "migrate-client-secret-value",
      redirectUri: "http://127.0.0.1:1/callback",
      name: "migrate",
    };
    let emulator: RunningEmulator;
    let dir: string;
    let shimDir: string;
    let test: TestStack;
    let env: NodeJS.ProcessEnv;
    /** A webhook of the help desk that no stack holds: destroy must leave it. */
    let bystander: ExistingWebhook;
    /** The webhooks as the help desk holds them after `pulumi up` of the dynamic program: name → id. */
    const ids = new Map<string, string>();
    /** The API requests counted before the migration started. */
    let requestsBefore: Record<string, number>;
    let printed = "";
    /** The delivery tokens of hook-2 (minted) and hook-3 (given) and their registered urls, as the dynamic outputs hold them. */
    const tokens = new Map<string, { deliveryToken: string; registeredUrl: string }>();
    /** The two delivery tokens, which no output and no plain-text state may hold. */
    const tokenPieces = (): string[] => [...tokens.values()].map((token) => token.deliveryToken);

    const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
      const run = startCli(args, { dir, env }, extraEnv);
      run.child.stdin.end();
      return run.done;
    };
    const pulumi = (args: string[]) =>
      runCommand("pulumi", [...args, "--stack", test.stack.name, "--non-interactive"], { cwd: dir, env });
    const state = (): string => readStateFile(test, project);
    const resources = async (): Promise<Resource[]> =>
      ((await test.stack.exportStack()).deployment as { resources: Resource[] }).resources;

    beforeAll(async () => {
      emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
      const { accessToken } = await signIn({ baseUrl: emulator.url, ...client });
      dir = mkdtempSync(join(tmpdir(), "helpdesk-migrate-"));
      makeProject(dir);
      test = await createTestStack(dir, configAsLoginWrites(emulator.url, client, { accessToken }));
      env = cliEnvOf(test);
      [bystander] = (await createDirectly(emulator, accessToken, [
        { event: "note_added", url: "https://hooks.example.test/migrate/bystander" },
      ])) as [ExistingWebhook];
      const up = await test.stack.up();
      expect(up.summary.result).toBe("succeeded");
      for (const resource of await resources())
        if (resource.type === DYNAMIC_WEBHOOK_TYPE)
          ids.set(
            resource.urn.slice(resource.urn.lastIndexOf("::") + 2),
            required(resource.id, `the id of ${resource.urn}`),
          );
      expect(ids.size).toBe(HOOKS.length);
      for (const resource of await resources()) {
        const name = resource.urn.slice(resource.urn.lastIndexOf("::") + 2);
        const token = resource.outputs?.deliveryToken as { plaintext?: string } | undefined;
        const registered = resource.outputs?.registeredUrl as { plaintext?: string } | undefined;
        if (resource.type === DYNAMIC_WEBHOOK_TYPE && token?.plaintext && registered?.plaintext)
          tokens.set(name, {
            deliveryToken: JSON.parse(token.plaintext),
            registeredUrl: JSON.parse(registered.plaintext),
          });
      }
      expect([...tokens.keys()].sort()).toEqual(["hook-2", "hook-3"]);
      expect(tokens.get("hook-3")?.deliveryToken).toBe(GIVEN_TOKEN);
      expect(tokens.get("hook-2")?.deliveryToken).toMatch(/^hdt_/);
      // A `pulumi` that fails its first `state delete` (the second step of the migration), and runs the real one otherwise.
      shimDir = mkdtempSync(join(tmpdir(), "helpdesk-migrate-shim-"));
      const real = execFileSync("sh", ["-c", "command -v pulumi"], { env, encoding: "utf8" }).trim();
      writeFileSync(
        join(shimDir, "pulumi"),
        `#!/bin/sh\nif [ "$1" = state ] && [ "$2" = delete ] && [ ! -e "${shimDir}/failed" ]; then : > "${shimDir}/failed"; echo "error: injected failure" >&2; exit 1; fi\nexec "${real}" "$@"\n`,
      );
      chmodSync(join(shimDir, "pulumi"), 0o755);
      requestsBefore = await apiRequests(emulator);
    }, 300_000);

    afterAll(async () => {
      if (test) {
        await pulumi(["state", "unprotect", "--all", "--yes"]).catch(() => undefined);
        await test.stack.destroy().catch(() => undefined);
        await test.dispose();
      }
      await emulator?.close();
      for (const folder of [dir, shimDir]) if (folder) rmSync(folder, { recursive: true, force: true });
    });

    it("--dry-run lists the 20 webhooks (no url) and changes nothing", async () => {
      const before = state();
      const ran = await cli(["migrate", "--stack", test.stack.name, "--dry-run"]);
      expect(ran.code, ran.stderr).toBe(0);
      const lines = ran.stdout.trim().split("\n");
      expect(lines.map((line) => line.split("\t").slice(0, 3)).sort()).toEqual(
        HOOKS.map((hook) => [hook.name, ids.get(hook.name), hook.event]).sort(),
      );
      for (const hook of HOOKS) expect(`${ran.stdout}${ran.stderr}`).not.toContain(hook.url);
      expect(state()).toBe(before);
    });

    it("a helpdesk:* setting the native provider would refuse: exit 2 naming it, nothing changed", async () => {
      const before = state();
      await test.stack.setConfig("helpdesk:maxRetries", { value: "99" });
      try {
        const ran = await cli(["migrate", "--stack", test.stack.name]);
        expect(ran.code, ran.stderr).toBe(2);
        expect(ran.stderr).toMatch(/config helpdesk:maxRetries must be .*got "99"/);
        expect(ran.stderr).toContain("nothing changed");
      } finally {
        await test.stack.removeConfig("helpdesk:maxRetries");
      }
      expect(state()).toBe(before);
      expect((await test.stack.getAllConfig())[`${project}:helpdeskWebhookUrls`]).toBeUndefined();
    });

    it("the second step failing leaves every webhook in the state, none deleted; a rerun completes the move", async () => {
      const failed = await cli(["migrate", "--stack", test.stack.name], { PATH: `${shimDir}${delimiter}${env.PATH}` });
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toContain("pulumi state delete");
      expect(failed.stderr).toContain("again to finish");
      expect(existsSync(join(shimDir, "failed"))).toBe(true);
      const between = await resources();
      for (const [name, id] of ids) {
        expect(
          between
            .filter((resource) => resource.id === id)
            .map((resource) => resource.type)
            .sort(),
          name,
        ).toEqual([DYNAMIC_WEBHOOK_TYPE, WEBHOOK_TYPE].sort());
      }
      expect((await heldWebhooks(emulator)).map((hook) => hook.id).sort()).toEqual(
        [bystander.id, ...ids.values()].sort(),
      );

      const ran = await cli(["migrate", "--stack", test.stack.name]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain("skipped 20 webhooks adopted as native before");
      printed = ran.stdout;
      expect(printed).toContain(`import { Webhook } from "${nodejsSdkPackage()}";`);
      expect(printed).toContain("// Webhooks adopted by `pulumi-helpdesk migrate`.");
      expect(printed).toContain(
        `new Webhook("hook-0", { event: "${required(HOOKS[0], "hook-0").event}", url: helpdeskWebhookUrls.apply((urls) => urls[`,
      );
      for (const hook of HOOKS)
        expect(`${ran.stdout}${ran.stderr}${failed.stdout}${failed.stderr}`).not.toContain(hook.url);

      const after = await resources();
      expect(
        after.filter(
          (resource) => resource.type === DYNAMIC_WEBHOOK_TYPE || resource.type === "pulumi:providers:pulumi-nodejs",
        ),
      ).toEqual([]);
      const natives = after.filter((resource) => resource.type === WEBHOOK_TYPE);
      expect(
        natives.map((resource) => [resource.urn.slice(resource.urn.lastIndexOf("::") + 2), resource.id]).sort(),
      ).toEqual([...ids.entries()].sort());
      for (const native of natives) {
        const hook = required(
          HOOKS.find((candidate) => native.urn.endsWith(`::${candidate.name}`)),
          `the hook of ${native.urn}`,
        );
        expect(native.protect).toBe(true);
        expect(native.outputs?.event).toBe(hook.event);
        // exportStack shows secrets decrypted, in the state's secret form: the url is one.
        expect(native.outputs?.url).toEqual({
          "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
          plaintext: JSON.stringify(hook.url),
        });
      }
      for (const hook of HOOKS) expect(state()).not.toContain(hook.url);

      // The delivery tokens: carried over as the dynamic outputs held them, secret, and declared with the same inputs
      // (the minted one stays minted: no token in config; the given one read from the second secret list).
      for (const [name, token] of tokens) {
        const native = required(
          natives.find((resource) => resource.urn.endsWith(`::${name}`)),
          `the native ${name}`,
        );
        for (const key of ["deliveryToken", "registeredUrl"] as const) {
          expect(native.outputs?.[key], `${name} ${key}`).toHaveProperty(SIG_KEY, SECRET_SIG);
          expect(stateValue(native.outputs?.[key]), `${name} ${key}`).toBe(token[key]);
        }
        expect((await heldWebhooks(emulator)).find((hook) => hook.id === native.id)?.url, name).toBe(
          token.registeredUrl,
        );
      }
      expect(natives.find((resource) => resource.urn.endsWith("::hook-2"))?.outputs).toMatchObject({
        useDeliveryToken: true,
        deliveryTokenRotation: "2026-11",
      });
      expect(printed).toMatch(
        /new Webhook\("hook-2", \{ event: "[a-z_]+", url: helpdeskWebhookUrls\.apply\(\(urls\) => urls\[\d+\]!\), useDeliveryToken: true, deliveryTokenRotation: "2026-11" \}, \{ protect: true \}\);/,
      );
      expect(printed).toMatch(
        /new Webhook\("hook-3", \{ event: "[a-z_]+", url: helpdeskWebhookUrls\.apply\(\(urls\) => urls\[\d+\]!\), deliveryToken: helpdeskDeliveryTokens\.apply\(\(tokens\) => tokens\[0\]!\) \}, \{ protect: true \}\);/,
      );
      expect((await test.stack.getAllConfig())[`${project}:helpdeskDeliveryTokens`]).toEqual({
        value: GIVEN_TOKEN,
        secret: true,
      });
      const exported = await pulumi(["stack", "export"]);
      expect(exported.code, shown("pulumi stack export", exported)).toBe(0);
      for (const piece of tokenPieces()) {
        expect(state()).not.toContain(piece);
        expect(exported.stdout).not.toContain(piece);
        expect(`${ran.stdout}${ran.stderr}${failed.stdout}${failed.stderr}`).not.toContain(piece);
      }
      expect(await apiRequests(emulator)).toEqual(requestsBefore);
    });

    it("a second rerun finds nothing to migrate", async () => {
      const ran = await cli(["migrate", "--stack", test.stack.name]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain("nothing to migrate");
    });

    it("the printed program previews with no change, and no request reaches the help desk", async () => {
      writeFileSync(join(dir, "index.ts"), `${printed}\n`);
      const preview = await pulumi(["preview", "--expect-no-changes"]);
      expect(preview.code, shown("pulumi preview --expect-no-changes", preview)).toBe(0);
      const up = await pulumi(["up", "--yes", "--expect-no-changes"]);
      expect(up.code, shown("pulumi up --expect-no-changes", up)).toBe(0);
      for (const piece of tokenPieces())
        expect(`${preview.stdout}${preview.stderr}${up.stdout}${up.stderr}`).not.toContain(piece);
      expect(await apiRequests(emulator)).toEqual(requestsBefore);
    });

    it("aliases rename one webhook and move another into a component with no request (the README's example)", async () => {
      const renamed = printed
        .replace(
          /new Webhook\("hook-0", (.*) \{ protect: true \}\);/,
          'new Webhook("hook-zero", $1 { protect: true, aliases: [{ name: "hook-0" }] });',
        )
        .replace(
          /^const hook1 = new Webhook\("hook-1", (.*) \{ protect: true \}\);$/m,
          [
            "class Group extends pulumi.ComponentResource {",
            "  constructor(name: string, opts?: pulumi.ComponentResourceOptions) {",
            '    super("examples:index:Group", name, {}, opts);',
            '    new Webhook("hook-1", $1 { parent: this, protect: true, aliases: [{ parent: pulumi.rootStackResource }] });',
            "  }",
            "}",
            'new Group("group");',
          ].join("\n"),
        );
      expect(renamed).toContain('"hook-zero"');
      expect(renamed).toContain("class Group");
      writeFileSync(join(dir, "index.ts"), `${renamed}\n`);
      const up = await pulumi(["up", "--yes"]);
      expect(up.code, shown("pulumi up", up)).toBe(0);
      const after = await resources();
      const byId = (id: string) => after.find((resource) => resource.type === WEBHOOK_TYPE && resource.id === id)?.urn;
      expect(byId(required(ids.get("hook-0"), "the id of hook-0"))).toMatch(/::helpdesk:index:Webhook::hook-zero$/);
      expect(byId(required(ids.get("hook-1"), "the id of hook-1"))).toMatch(
        /::examples:index:Group\$helpdesk:index:Webhook::hook-1$/,
      );
      expect(await apiRequests(emulator)).toEqual(requestsBefore);
      const preview = await pulumi(["preview", "--expect-no-changes"]);
      expect(preview.code, shown("pulumi preview --expect-no-changes", preview)).toBe(0);
      expect(await apiRequests(emulator)).toEqual(requestsBefore);
    });

    it("pulumi destroy, after pulumi state unprotect --all, deletes exactly the 20 webhooks", async () => {
      const destroyRefused = await pulumi(["destroy", "--yes"]);
      expect(destroyRefused.code).not.toBe(0);
      expect((await heldWebhooks(emulator)).length).toBe(HOOKS.length + 1);
      const unprotect = await pulumi(["state", "unprotect", "--all", "--yes"]);
      expect(unprotect.code, shown("pulumi state unprotect", unprotect)).toBe(0);
      const destroy = await pulumi(["destroy", "--yes"]);
      expect(destroy.code, shown("pulumi destroy", destroy)).toBe(0);
      expect((await heldWebhooks(emulator)).map((hook) => hook.id)).toEqual([bystander.id]);
    });
  },
);
