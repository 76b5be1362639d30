/**
 * The demo (the README's main command, run by scripts/demo.sh after set-up): the main job end to end on the bundled
 * emulator, with the real Pulumi CLI and the real `pulumi-helpdesk login`:
 *
 *   1. start the emulator on 127.0.0.1 (auto-approve, so no person has to click);
 *   2. `pulumi-helpdesk login` through the OAuth authorization-code exchange; this script plays the browser;
 *   3. `pulumi up` of examples/basic with a local file:// backend, in a temporary copy of the example (its own
 *      Pulumi.yaml and package.json) whose node_modules links this checkout as `pulumi-helpdesk`, and its
 *      `@pulumi/pulumi`, as `npm install` of the package would give it;
 *   4. print the webhooks the emulator now holds;
 *   5. `pulumi destroy`; print that none are left;
 *   6. remove the demo stack and stop the emulator.
 *
 * Any failing step stops the demo with a message that names the step, and a non-zero exit code.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_CLIENT, type StoredWebhook, startEmulator } from "pulumi-helpdesk/emulator";
import { completeAuthorizationAutoApproved } from "pulumi-helpdesk/emulator/client";
import { CLI_EXECUTABLE } from "../dist/kernel/names.js";
import { PACKAGE_NAME } from "../dist/kernel/package-version.js";
// The built package (the demo runs after the build): the settings table names the secret's variable.
import { SETTINGS } from "../dist/kernel/settings.js";

const root = resolve(import.meta.dirname, "..");
const stackName = "demo";
const stateDir = mkdtempSync(join(tmpdir(), "helpdesk-demo-state-"));
const projectDir = mkdtempSync(join(tmpdir(), "helpdesk-demo-project-"));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PULUMI_BACKEND_URL: `file://${stateDir}`,
  PULUMI_CONFIG_PASSPHRASE: randomBytes(16).toString("hex"),
  PULUMI_SKIP_UPDATE_CHECK: "true",
  PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  // The example's Pulumi.yaml says `typescript: false` (Node.js strips the types); the Node.js language host built
  // here ignores runtime options, so the demo tells @pulumi/pulumi itself, as a current host does.
  PULUMI_NODEJS_TYPESCRIPT: "false",
};

/**
 * Makes the demo's project: examples/basic (its Pulumi.yaml, package.json and index.ts) in a temporary folder, its
 * node_modules holding this checkout as `pulumi-helpdesk` and the checkout's `@pulumi/pulumi` (links: one copy of
 * each, as npm installs them), so that the program and the dynamic provider resolve them as in a user's project.
 */
function makeProject(): void {
  // Not what a person's copy would lack: installed modules, stack files.
  const skipped = /\/(node_modules|Pulumi\.(?!yaml$)[^/]*\.yaml)$/;
  cpSync(join(root, "examples", "basic"), projectDir, { recursive: true, filter: (path) => !skipped.test(path) });
  mkdirSync(join(projectDir, "node_modules", "@pulumi"), { recursive: true });
  symlinkSync(root, join(projectDir, "node_modules", PACKAGE_NAME), "dir");
  symlinkSync(
    join(root, "node_modules", "@pulumi", "pulumi"),
    join(projectDir, "node_modules", "@pulumi", "pulumi"),
    "dir",
  );
}
const bold = (text: string): string =>
  process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${text}\u001b[0m` : text;

class StepError extends Error {}

async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  console.log(`\n${bold(`==> ${title}`)}`);
  const started = performance.now();
  try {
    const value = await run();
    console.log(`    (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return value;
  } catch (error) {
    throw new StepError(`${title}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs a command with inherited output; rejects with its exit code. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: projectDir, env, stdio: "inherit" });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${command} ${args[0]} exited with code ${code}`)),
    );
  });
}

/** A free TCP port on 127.0.0.1 for the demo client's redirect URI. */
function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePromise(port));
    });
  });
}

/**
 * Runs `pulumi-helpdesk login` and plays the browser: reads the authorize URL it prints, GETs it (the emulator
 * auto-approves and redirects), then follows the redirect to the CLI's loopback listener.
 */
function login(baseUrl: string, clientId: string, clientSecret: string, redirectUri: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(root, "dist/bin", `${CLI_EXECUTABLE}.js`),
        "login",
        "--stack",
        stackName,
        "--base-url",
        baseUrl,
        "--client-id",
        clientId,
        "--redirect-uri",
        redirectUri,
        "--no-browser",
        "--timeout",
        "60",
      ],
      {
        cwd: projectDir,
        env: { ...env, [SETTINGS.clientSecret.env]: clientSecret },
        stdio: ["ignore", "inherit", "pipe"],
      },
    );
    let buffered = "";
    let browsed = false;
    child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      buffered += chunk.toString();
      const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(buffered)?.[1];
      if (url && !browsed) {
        browsed = true;
        actAsBrowser(url).catch((error: unknown) => {
          child.kill();
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      }
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${CLI_EXECUTABLE} login exited with code ${code}`)),
    );
  });
}

async function actAsBrowser(authorizeUrl: string): Promise<void> {
  console.log(`    (demo) opening the sign-in URL as a browser would`);
  await completeAuthorizationAutoApproved(authorizeUrl);
}

function printWebhooks(webhooks: readonly StoredWebhook[]): void {
  if (webhooks.length === 0) {
    console.log("    the emulator holds no webhooks");
    return;
  }
  console.log(`    the emulator holds ${webhooks.length} webhook(s):`);
  for (const hook of webhooks)
    console.log(`      ${hook.id.padEnd(22)} ${hook.event.padEnd(24)} ${hook.state.padEnd(7)} ${hook.url}`);
}

async function main(): Promise<void> {
  makeProject();
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const client = { ...DEFAULT_CLIENT, redirectUri };
  const emulator = await step("Starting the help-desk emulator", async () => {
    const started = await startEmulator({ port: 0, clients: [client], autoApprove: true });
    console.log(`    listening on ${started.url}`);
    return started;
  });
  let upDone = false;
  try {
    await step(`Signing in: ${CLI_EXECUTABLE} login --stack ${stackName}`, () =>
      login(emulator.url, client.clientId, client.clientSecret, client.redirectUri),
    );
    await step("pulumi up", async () => {
      await run("pulumi", ["up", "--yes", "--stack", stackName, "--non-interactive", "--skip-preview"]);
      upDone = true;
    });
    const registered = await step("Webhooks registered on the emulator", async () => {
      const hooks = emulator.state().webhooks;
      printWebhooks(hooks);
      return hooks;
    });
    if (registered.length === 0) throw new StepError("pulumi up finished but the emulator holds no webhooks");
    await step("pulumi destroy", async () => {
      await run("pulumi", ["destroy", "--yes", "--stack", stackName, "--non-interactive", "--skip-preview"]);
      upDone = false;
    });
    const left = await step("Webhooks left on the emulator", async () => {
      const hooks = emulator.state().webhooks;
      printWebhooks(hooks);
      return hooks;
    });
    if (left.length !== 0) throw new StepError(`pulumi destroy finished but ${left.length} webhook(s) are left`);
  } finally {
    if (upDone)
      await run("pulumi", ["destroy", "--yes", "--stack", stackName, "--non-interactive", "--skip-preview"]).catch(
        () => undefined,
      );
    await run("pulumi", ["stack", "rm", "--yes", "--force", "--stack", stackName, "--non-interactive"]).catch(
      () => undefined,
    );
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(projectDir, { recursive: true, force: true });
    await emulator.close();
    console.log("\n    emulator stopped");
  }
  console.log(`\n${bold("Demo complete: webhooks registered by pulumi up, and removed by pulumi destroy.")}`);
}

main().catch((error: unknown) => {
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(projectDir, { recursive: true, force: true });
  console.error(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
