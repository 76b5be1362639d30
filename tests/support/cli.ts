/**
 * Test support: runs the built `pulumi-helpdesk` command as a child process (as a person would), in a throw-away
 * Pulumi project with a file:// backend.
 */

import { type ChildProcessWithoutNullStreams, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { completeAuthorizationAutoApproved } from "../../emulator-client/index.js";
import { required } from "../../kernel/required.js";
import { settingFlag } from "../../kernel/settings.js";
import { type Ran, type RunningProcess, runCommand, startProcess } from "../../scripts/lib/processes.ts";
import { withoutSettingVariables } from "./environment.js";

const cliPath = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
/** The installed command's entry (`bin` in package.json): checks the Node.js version, then loads main.js. */
const binPath = fileURLToPath(new URL("../../dist/bin/pulumi-helpdesk.js", import.meta.url));

/** How to run the CLI. */
export interface CliOptions {
  /**
   * The Node.js executable to run it with, e.g. a floor of the supported versions (tests/node-floor/). Given, the CLI
   * starts at the installed command's entry, dist/bin/pulumi-helpdesk.js (which refuses an unsupported Node.js), as `npx
   * pulumi-helpdesk` would; by default it is dist/cli/main.js under the test's own Node.js.
   */
  node?: string;
}

/** A temporary Pulumi project (no program needed: the CLI only touches its config) and its backend. */
export interface TestProject {
  dir: string;
  env: NodeJS.ProcessEnv;
  /** The text of `Pulumi.<stack>.yaml` (secrets appear there only as ciphertext). */
  stackFile(stack: string): string;
  dispose(): void;
}

/**
 * Creates a project directory and a file:// backend for CLI tests.
 *
 * @param options `projectFile: false` leaves out `Pulumi.yaml` (a directory that is no Pulumi project, to run the CLI
 *   in "outside a project"); default true
 */
export function createTestProject(options: { projectFile?: boolean } = {}): TestProject {
  const dir = mkdtempSync(join(tmpdir(), "helpdesk-cli-project-"));
  const state = mkdtempSync(join(tmpdir(), "helpdesk-cli-state-"));
  if (options.projectFile ?? true) writeFileSync(join(dir, "Pulumi.yaml"), "name: cli-test\nruntime: nodejs\n");
  const env = withoutSettingVariables({
    ...process.env,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: "cli-test-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // Each project its own token cache: never the user's ~/.cache, never another test's.
    HELPDESK_TOKEN_CACHE_DIR: join(state, "token-cache"),
    NO_COLOR: "1",
    CI: "true",
  });
  return {
    dir,
    env,
    stackFile: (stack) => readFileSync(join(dir, `Pulumi.${stack}.yaml`), "utf8"),
    dispose() {
      rmSync(dir, { recursive: true, force: true });
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** A running `pulumi-helpdesk` process. */
export interface CliRun {
  child: ChildProcessWithoutNullStreams;
  /** Settles with the authorize URL once the CLI prints it. */
  authorizeUrl: Promise<string>;
  /** Settles when the process exits. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** Waits for something it prints (scripts/lib/processes.ts `RunningProcess.waitFor`). */
  waitFor: RunningProcess["waitFor"];
}

/**
 * Starts the CLI.
 *
 * @param args command-line arguments after `pulumi-helpdesk`
 * @param project the project whose directory is the cwd and whose env is used
 * @param env extra environment variables
 * @param options which Node.js runs it
 */
export function startCli(
  args: string[],
  project: Pick<TestProject, "dir" | "env">,
  env: NodeJS.ProcessEnv = {},
  options: CliOptions = {},
): CliRun {
  const [node, entry] = options.node === undefined ? [process.execPath, cliPath] : [options.node, binPath];
  const started = startProcess(node, [entry, ...args], {
    cwd: project.dir,
    env: { ...project.env, ...env },
    stdin: "pipe",
  });
  // Settles only when the CLI prints the URL: most runs never do, and nobody waits for it then.
  const authorizeUrl = new Promise<string>((resolve) => {
    started.waitFor("stderr", AUTHORIZE_URL, "the authorize URL", 3_600_000).then(
      (match) => resolve(required(match[1], "the authorize URL")),
      () => undefined,
    );
  });
  const done = started.ended.then(({ code, stdout, stderr }) => ({ code, stdout, stderr }));
  // Spawned with every stream a pipe (stdin: "pipe" above).
  return { child: started.child as ChildProcessWithoutNullStreams, authorizeUrl, done, waitFor: started.waitFor };
}

/** Runs the CLI to completion (see {@link startCli}). */
export async function runCli(
  args: string[],
  project: Pick<TestProject, "dir" | "env">,
  env: NodeJS.ProcessEnv = {},
  options: CliOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startCli(args, project, env, options);
  run.child.stdin.end();
  return run.done;
}

/** What {@link loginAutoApproved} signs in with. */
export interface CliLogin {
  /** The stack (created by login when missing). */
  stack: string;
  /** The help desk: an emulator started with `autoApprove` that registers `client`. */
  baseUrl: string;
  /** The OAuth client; `redirectUri` must be a loopback URI on a free port (see {@link freePort}). */
  client: { clientId: string; clientSecret: string; redirectUri: string };
  /** `--namespace` (default: none, i.e. `helpdesk`). */
  namespace?: string;
}

/**
 * The authorize URL that `pulumi-helpdesk login --no-browser` prints on stderr for a person to open, or undefined.
 *
 * @param stderr what the CLI printed so far
 */
export function authorizeUrlIn(stderr: string): string | undefined {
  return AUTHORIZE_URL.exec(stderr)?.[1];
}

/** The authorize URL that `login --no-browser` prints (group 1). */
const AUTHORIZE_URL = /(https?:\/\/\S+\/oauth\/authorize\?\S+)/;

/**
 * The arguments of `pulumi-helpdesk login --no-browser` for a stack, a help desk and a client: `login`, `--stack`,
 * the settings' flags (kernel/settings.ts `settingFlag`: `--base-url`, `--client-id`, `--redirect-uri`), `--no-browser`,
 * then `--timeout` and `--namespace` when given. The client secret is left out: it goes through
 * `HELPDESK_CLIENT_SECRET`, as the README advises.
 *
 * @param login stack, help desk (`baseUrl`), client (`clientId`, `redirectUri`) and namespace
 * @param timeoutSeconds `--timeout`, in seconds (default: the CLI's own)
 */
export function loginArgs(
  login: Pick<CliLogin, "stack" | "baseUrl" | "namespace"> & {
    client: Pick<CliLogin["client"], "clientId" | "redirectUri">;
  },
  timeoutSeconds?: number,
): string[] {
  return [
    "login",
    "--stack",
    login.stack,
    settingFlag("baseUrl"),
    login.baseUrl,
    settingFlag("clientId"),
    login.client.clientId,
    settingFlag("redirectUri"),
    login.client.redirectUri,
    "--no-browser",
    ...(timeoutSeconds === undefined ? [] : ["--timeout", String(timeoutSeconds)]),
    ...(login.namespace ? ["--namespace", login.namespace] : []),
  ];
}

/**
 * Runs the real `pulumi-helpdesk login --no-browser` to completion, playing the browser against an auto-approving
 * emulator (`completeAuthorizationAutoApproved`): how the suites that run Pulumi programs get a stack signed in the
 * way a person's is. The client secret goes through `HELPDESK_CLIENT_SECRET`, as the README advises.
 *
 * @param where the project directory (cwd; holds `Pulumi.yaml`) and the environment (backend, passphrase, token cache)
 * @param login stack, help desk, client and namespace
 * @param options which Node.js runs the CLI (see {@link startCli})
 * @returns the run's stdout and stderr
 * @throws Error with the run's output when login exits non-zero or the emulator does not redirect
 */
export async function loginAutoApproved(
  where: Pick<TestProject, "dir" | "env">,
  login: CliLogin,
  options: CliOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  const args = loginArgs(login, 120);
  const run = startCli(args, where, { HELPDESK_CLIENT_SECRET: login.client.clientSecret }, options);
  run.child.stdin.end();
  const url = await Promise.race([run.authorizeUrl, run.done.then(() => undefined)]);
  if (url) {
    try {
      await completeAuthorizationAutoApproved(url);
    } catch (error) {
      run.child.kill();
      const ended = await run.done;
      throw new Error(
        `playing the browser for pulumi-helpdesk ${args.join(" ")} failed: ${(error as Error).message}\n${ended.stderr}`,
        { cause: error },
      );
    }
  }
  const done = await run.done;
  if (done.code !== 0)
    throw new Error(`pulumi-helpdesk ${args.join(" ")} exited with ${done.code}\n${done.stdout}${done.stderr}`);
  return { stdout: done.stdout, stderr: done.stderr };
}

/**
 * Runs a `pulumi-helpdesk` other than the repository's build (the release's executable, `npx pulumi-helpdesk` in a
 * user's project) through `login --no-browser --timeout 120` ({@link loginArgs}), playing the browser against an
 * auto-approving emulator as {@link loginAutoApproved} does; the client secret goes through `HELPDESK_CLIENT_SECRET`.
 *
 * @param command the executable and the arguments before `login`, e.g. `["npx", "--no-install", "pulumi-helpdesk"]`
 * @param login stack, help desk, client and namespace
 * @param where the working folder and the environment
 * @returns the finished run (never rejects for a non-zero exit: the caller asserts and shows it)
 */
export async function loginThrough(
  command: readonly [string, ...string[]],
  login: CliLogin,
  where: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Ran> {
  let browsed: Promise<void> | undefined;
  const onStderr = (stderr: string): void => {
    const url = authorizeUrlIn(stderr);
    if (url && !browsed) browsed = completeAuthorizationAutoApproved(url);
  };
  const [file, ...before] = command;
  const ended = await runCommand(file, [...before, ...loginArgs(login, 120)], {
    cwd: where.cwd,
    env: { ...where.env, HELPDESK_CLIENT_SECRET: login.client.clientSecret },
    onStderr,
  });
  await browsed;
  return ended;
}

/** Reads one config value of a stack with the real `pulumi config get` (secrets decrypted), or undefined. */
export function pulumiConfigGet(project: TestProject, stack: string, key: string): string | undefined {
  try {
    return execFileSync("pulumi", ["config", "get", key, "--stack", stack], {
      cwd: project.dir,
      env: project.env,
      encoding: "utf8",
      stdio: "pipe",
    }).trim();
  } catch {
    return undefined;
  }
}

/** Start of the kernel's range for automatically assigned ports (`listen(0)`, `connect()`); Linux default 32768. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 0) return low;
  } catch {
    // not Linux: 32768 is below the BSD/macOS range (49152) too
  }
  return 32768;
}

/** Ports this process has handed out, never handed out twice. */
const handedOut = new Set<number>();

/**
 * A TCP port on 127.0.0.1 for a redirect URI the CLI will listen on later (the emulator must know the URI first).
 *
 * The port is free when returned and nothing holds it until the CLI binds it, so it must not be one the kernel can
 * give away in between: a port from `listen(0)` is in the ephemeral range, where every other `listen(0)` (emulators,
 * receivers, Pulumi's gRPC servers, other test files) and every outgoing connection draws its port. So the port is
 * drawn below that range, where only an explicit bind can take it, and checked free by binding it once.
 */
export async function freePort(): Promise<number> {
  const low = Math.min(ephemeralLow(), 65536);
  const from = 20_000; // above the usual fixed service ports (8080, 8976, ...)
  if (low - from < 1000) throw new Error(`freePort: the ephemeral port range starts at ${low}; no room below it`);
  for (let tries = 0; tries < 100; tries++) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("freePort: found no free port below the ephemeral range in 100 tries");
}
