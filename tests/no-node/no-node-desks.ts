/**
 * The suite of tests/no-node/*.test.ts: a Pulumi program of a language other than TypeScript, used as a person with
 * no Node.js uses it, from the release only (tests/support/release.ts builds it once per test run); and, with
 * {@link Language.node}, the same for a TypeScript program and the release's TypeScript SDK
 * (tests/release/typescript-sdk.test.ts):
 *
 * - PATH holds the Pulumi CLI and the language's host (links into a folder of the test) and, for Python, a fresh
 *   virtualenv: no `node`, no `npm` can be found on it (for TypeScript: the project's Node.js and npm, nothing else);
 * - `PULUMI_HOME` is empty (no plugin), automatic plugin acquisition is on, and `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`
 *   sends every plugin download to a local HTTP server that serves the release folder and records what was asked;
 * - both stacks' help desks are signed in to by the release's `pulumi-helpdesk` (the archive's link to the
 *   executable), `login --stack` for the default provider and `login --stack --namespace eu` for the explicit one; the
 *   emulators auto-approve and the test plays the browser;
 * - `pulumi up` downloads the plugin (the server saw the linux-amd64 archive asked for; it is then in the plugin
 *   cache) and creates one webhook on each help desk; the state file holds no token or client secret in plain text;
 *   `pulumi destroy` removes both.
 *
 * Every check is made on the emulators' side, in the server's log, in the plugin cache or in the state file.
 */

import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { required } from "../../kernel/required.js";
import { processesRunning, runCommand, shown, waitFor } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { freePort, loginArgs, loginThrough } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { EXAMPLES_DIR } from "../support/examples.js";
import { pulumi, removeStack } from "../support/pulumi-cli.js";
import { mustRun, toolVenv, wheelhouse } from "../support/python.js";
import { sharedRelease } from "../support/release.js";
import { onPath, systemWithout, toolAvailable } from "../support/tools.js";

/** package.json's version: the release's. */
export const VERSION = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string })
  .version;
/** The plugin archive Pulumi downloads on linux-amd64. */
export const ARCHIVE = `pulumi-resource-helpdesk-v${VERSION}-linux-amd64.tar.gz`;

/** What {@link ARCHIVE} holds: the executable, its CLI's and policy pack's names (links to it), the license. */
export const ARCHIVE_FILES = ["LICENSE", "pulumi-analyzer-helpdesk", "pulumi-helpdesk", "pulumi-resource-helpdesk"];

/**
 * Unpacks the release's archive for this machine ({@link ARCHIVE}) into `dir`, as a person does.
 *
 * @param dir the folder to unpack into (made; its parent must exist)
 * @returns `dir`
 * @throws Error when `tar` fails
 */
export async function unpackRelease(dir: string): Promise<string> {
  const release = await sharedRelease();
  mkdirSync(dir);
  execFileSync("tar", ["-xzf", join(release, ARCHIVE), "-C", dir]);
  return dir;
}

/**
 * What a shell with `env` finds first of `node` and `npm`: its path, or `none` (what the no-node suites hold).
 *
 * @param cwd the folder the shell runs in
 */
export async function nodeOrNpmFound(cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await runCommand("/bin/sh", ["-c", "command -v node || command -v npm || echo none"], { cwd, env });
  return ran.stdout.trim();
}

/** The entries of a Pulumi home's plugin cache (`plugins/`), none when it has none yet. */
export function cachedPlugins(pulumiHome: string): string[] {
  const plugins = join(pulumiHome, "plugins");
  return existsSync(plugins) ? readdirSync(plugins) : [];
}

/**
 * The files of the helpdesk plugin in a Pulumi home's plugin cache as the engine installed it from {@link ARCHIVE}
 * (its own dot files left out), sorted.
 */
export function installedPluginFiles(pulumiHome: string): string[] {
  return readdirSync(join(pulumiHome, "plugins", `resource-helpdesk-v${VERSION}`))
    .filter((name) => !name.startsWith("."))
    .sort();
}

/** A local mirror of the release folder, as `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` points Pulumi at it. */
export interface Mirror {
  url: string;
  /** What was asked, as `METHOD /path` lines, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * Serves the files of `dir` at the root of an HTTP server on 127.0.0.1 (404 for anything else) and records requests.
 *
 * @param dir the release folder
 */
export async function serveRelease(dir: string): Promise<Mirror> {
  const files = new Set(readdirSync(dir));
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const [path = ""] = (request.url ?? "/").split("?");
    const name = decodeURIComponent(path.slice(1));
    if (!files.has(name) || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": statSync(join(dir, name)).size,
    });
    if (request.method === "HEAD") response.end();
    else createReadStream(join(dir, name)).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * A folder of links to the tools a run may use, found on the test's own PATH: a PATH without the rest of it.
 *
 * @param dir the folder to make
 * @param tools command names (e.g. `pulumi`, `pulumi-language-yaml`)
 * @returns `dir`
 */
export function linkTools(dir: string, tools: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const tool of tools) {
    const found = execFileSync("sh", ["-c", 'command -v "$1"', "sh", tool], { encoding: "utf8" }).trim();
    symlinkSync(realpathSync(found), join(dir, tool));
  }
  return dir;
}

/** The commands of Node.js that must not be found. */
const NODE_COMMANDS = new Set(["node", "nodejs", "npm", "npx", "corepack"]);

/**
 * A folder of links to every command of /usr/bin and /bin but Node.js's.
 *
 * @param dir the folder to create
 * @returns `dir`
 */
export function systemWithoutNode(dir: string): string {
  return systemWithout(dir, NODE_COMMANDS);
}

/** Whether the Pulumi CLI and the given language hosts are on the test's PATH (fails under CI when not). */
export function pulumiToolsReady(hosts: string[]): boolean {
  return toolAvailable("the Pulumi CLI", onPath("pulumi")) && hosts.every((host) => toolAvailable(host, onPath(host)));
}

/** What a language gives the suite. */
export interface Language {
  /** The language host commands to put on PATH (`pulumi-language-yaml`, ...). */
  hosts: string[];
  /** Whether the program runs on Node.js (TypeScript): then PATH also holds this test run's `node` and `npm`. */
  node?: boolean;
  /**
   * Writes the program into `programDir` and returns what the runs need besides the Pulumi tools.
   *
   * @param work the test's folder
   * @param programDir the (empty) program folder to fill
   */
  prepare(work: string, programDir: string): Promise<{ pathDirs?: string[]; env?: NodeJS.ProcessEnv }>;
  /** The program's project name (its Pulumi.yaml `name`), for the state file's path. */
  project: string;
  /**
   * Runs `up` or `destroy` the way the language's programs do, when that is not `pulumi up` / `pulumi destroy` in the
   * program's folder (a Go program of the Automation API runs them itself).
   *
   * @param operation what to run; @param stack the stack; @param programDir its folder; @param env the suite's
   * @throws Error with the run's output when it fails
   */
  operate?(operation: "up" | "destroy", stack: string, programDir: string, env: NodeJS.ProcessEnv): Promise<void>;
  /**
   * The folder the plugin mirror serves, when not the release folder: e.g. the GitHub release's download folder
   * `npm run publish` wrote (tests/publish/registries.test.ts). Called before {@link prepare}.
   */
  pluginMirror?(): Promise<string>;
}

/** A help desk of the suite: its emulator and the OAuth client the CLI signs in with. */
interface Desk {
  emulator: RunningEmulator;
  client: { clientId: string; clientSecret: string; redirectUri: string; name: string };
}

/**
 * examples/go as a {@link Language}'s program, built by `build`: its folder holds examples/go's Pulumi.yaml as it is,
 * and `up` / `destroy` run the built program (`-stack <stack> <operation>`) there. Go programs need no language host:
 * PATH has the Pulumi CLI and {@link systemWithoutNode}.
 *
 * @param build makes the program's executable from the test's work folder, and returns its path
 */
export function goExampleSteps(
  build: (work: string) => Promise<string>,
): Pick<Language, "prepare"> & Required<Pick<Language, "operate">> {
  let program = "";
  return {
    prepare: async (work, programDir) => {
      program = await build(work);
      mkdirSync(programDir, { recursive: true });
      copyFileSync(join(EXAMPLES_DIR, "go", "Pulumi.yaml"), join(programDir, "Pulumi.yaml"));
      return { pathDirs: [systemWithoutNode(join(work, "system"))] };
    },
    operate: async (operation, stack, programDir, env) => {
      const ran = await runCommand(program, ["-stack", stack, operation], { cwd: programDir, env });
      if (ran.code !== 0) throw new Error(shown(`helpdesk-go -stack ${stack} ${operation}`, ran));
    },
  };
}

/**
 * Defines the suite for one language.
 *
 * @param title the describe title
 * @param language the language's program and tools
 */
export function describeDownloadedPlugin(title: string, language: Language): void {
  describe.skipIf(!pulumiToolsReady(language.hosts))(title, () => {
    const stack = `nonode${Math.random().toString(16).slice(2, 8)}`;
    const desks: Desk[] = [];
    let work: string;
    let programDir: string;
    let pulumiHome: string;
    let mirror: Mirror;
    let env: NodeJS.ProcessEnv;

    async function run(args: string[]): Promise<string> {
      const ran = await pulumi([...args, "--stack", stack], programDir, env);
      if (ran.code !== 0) throw new Error(shown(`pulumi ${args.join(" ")}`, ran));
      return ran.stdout;
    }

    /** `up` or `destroy`, as the language's programs run it. */
    async function operate(operation: "up" | "destroy"): Promise<void> {
      if (language.operate) await language.operate(operation, stack, programDir, env);
      else await run([operation, "--yes", "--skip-preview"]);
    }

    beforeAll(async () => {
      const release = await sharedRelease();
      work = mkdtempSync(join(tmpdir(), "helpdesk-no-node-"));
      // The release's executable, as a person unpacks the archive (not on PATH: Pulumi must download its own).
      const unpacked = await unpackRelease(join(work, "helpdesk"));
      mirror = await serveRelease(language.pluginMirror ? await language.pluginMirror() : release);
      programDir = join(work, "program");
      mkdirSync(programDir);
      const tools = linkTools(join(work, "bin"), [
        "pulumi",
        ...language.hosts,
        ...(language.node ? ["node", "npm"] : []),
      ]);
      const prepared = await language.prepare(work, programDir);
      pulumiHome = join(work, "pulumi-home");
      mkdirSync(pulumiHome);
      // Pulumi's plugin download may leave its temporary archive (`pulumi-plugin-tar*`) in TMPDIR: give it a
      // temporary folder inside the test's own, which the suite removes.
      mkdirSync(join(work, "tmp"));
      mkdirSync(join(work, "state"));
      env = {
        PATH: [tools, ...(prepared.pathDirs ?? [])].join(delimiter),
        HOME: process.env.HOME,
        TMPDIR: join(work, "tmp"),
        PULUMI_HOME: pulumiHome,
        PULUMI_BACKEND_URL: `file://${join(work, "state")}`,
        PULUMI_CONFIG_PASSPHRASE: "no-node-test-passphrase",
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `.*=${mirror.url}`,
        HELPDESK_TOKEN_CACHE_DIR: join(work, "token-cache"),
        NO_COLOR: "1",
        CI: "true",
        ...prepared.env,
      };
      // Two help desks, each signed in to by the release's CLI.
      const cli = join(unpacked, "pulumi-helpdesk");
      for (const namespace of [undefined, "eu"]) {
        const name = namespace ?? "default";
        const client = {
          clientId: `${name}-client`,
          clientSecret: `${name}-client-secret-value`,
          redirectUri: `http://127.0.0.1:${await freePort()}/callback`,
          name,
        };
        const emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
        desks.push({ emulator, client });
        const signIn = { stack, baseUrl: emulator.url, client, ...(namespace ? { namespace } : {}) };
        const ran = await loginThrough([cli], signIn, { cwd: programDir, env });
        if (ran.code !== 0) throw new Error(shown(`pulumi-helpdesk ${loginArgs(signIn).join(" ")}`, ran));
        expect(ran.stdout).toContain(`${namespace ?? "helpdesk"}:accessToken (secret)`);
      }
    }, 300_000);

    afterAll(async () => {
      if (env) {
        await pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack], programDir, env).catch(() => undefined);
        await removeStack(stack, programDir, env);
      }
      for (const { emulator } of desks) await emulator.close();
      await mirror?.close();
      if (work) {
        // The plugin outlives the last `pulumi` by up to 5 s (it exits when its engine stops responding) and may still
        // write into the test's folder (its token cache): wait for every process run from there to end first.
        await waitFor(
          "the processes run from the test's folder to end",
          () => processesRunning(work).length === 0,
          15_000,
          200,
        ).catch(() => undefined);
        rmSync(work, { recursive: true, force: true });
      }
    });

    it(
      language.node ? "starts with no plugin in the plugin cache" : "runs where no node and no npm can be found",
      async () => {
        expect(await nodeOrNpmFound(work, env)).toBe(language.node ? join(work, "bin", "node") : "none");
        // The logins ran `pulumi` (stack config): PULUMI_HOME has its workspaces and logs, and still no plugin.
        expect(cachedPlugins(pulumiHome)).toEqual([]);
      },
    );

    it("up downloads the plugin from the mirror and creates one webhook on each help desk", async () => {
      await operate("up");
      // Asked once, for this machine's archive: the override sent the engine here, at the mirror's root.
      expect(mirror.requests).toEqual([`GET /${ARCHIVE}`]);
      expect(installedPluginFiles(pulumiHome)).toEqual(ARCHIVE_FILES);
      const outputs = JSON.parse(await run(["stack", "output", "--json"])) as Record<string, string>;
      const [home, eu] = desks as [Desk, Desk];
      const held = async (desk: Desk) =>
        (await heldWebhooks(desk.emulator)).map(({ id, event, url, state }) => ({ id, event, url, state }));
      expect(await held(home)).toEqual([
        {
          id: outputs.ticketsOpenedId,
          event: "ticket_opened",
          url: "https://hooks.example.test/tickets/opened",
          state: "active",
        },
      ]);
      expect(await held(eu)).toEqual([
        {
          id: outputs.euCustomerRepliedId,
          event: "customer_replied",
          url: "https://hooks.example.test/eu/replies",
          state: "active",
        },
      ]);
    });

    it("the state file holds no token or client secret of either help desk in plain text", async () => {
      const config = JSON.parse(await run(["config", "--show-secrets", "--json"])) as Record<
        string,
        { value?: string; secret?: boolean }
      >;
      const secrets = ["helpdesk", "eu"].flatMap((ns) =>
        ["accessToken", "refreshToken", "clientSecret"].map((key) => `${ns}:${key}`),
      );
      const values = secrets.map((key) => {
        expect(config[key]?.secret, key).toBe(true);
        return required(config[key]?.value, `config ${key}`);
      });
      expect(values.every((value) => value.length >= 8)).toBe(true);
      const state = readFileSync(join(work, "state", ".pulumi", "stacks", language.project, `${stack}.json`), "utf8");
      expect(state).toContain("helpdesk:index:Webhook");
      for (const value of values) expect(state).not.toContain(value);
    });

    it("destroy removes both webhooks from their help desks", async () => {
      await operate("destroy");
      for (const { emulator } of desks) expect(await heldWebhooks(emulator)).toEqual([]);
    });
  });
}

/**
 * A fresh virtualenv in `work` holding the release's wheel and Pulumi's Python SDK only (from the wheelhouse of the
 * tools' virtualenv, no index), as a Python user installs them.
 *
 * @returns the virtualenv's `bin` folder, to put on the program's PATH
 * @throws Error when the tools' virtualenv is missing (scripts/setup.sh --test makes it) or pip fails
 */
export async function releaseWheelVenv(work: string): Promise<string> {
  const python = join(toolVenv, "bin", "python");
  if (!toolAvailable(`the Python virtualenv ${toolVenv} (scripts/setup.sh --test)`, existsSync(python)))
    throw new Error(`no ${python}`);
  const wheel = join(await sharedRelease(), `pulumi_helpdesk-${VERSION}-py3-none-any.whl`);
  const venv = join(work, "venv");
  await mustRun(python, ["-m", "venv", venv], work);
  await mustRun(
    join(venv, "bin", "python"),
    ["-m", "pip", "install", "--quiet", "--no-index", "--find-links", await wheelhouse(python), wheel],
    work,
  );
  return join(venv, "bin");
}
