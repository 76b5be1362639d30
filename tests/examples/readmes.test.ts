/**
 * Each example's README, followed by a new user on a machine of their own: its marked commands typed as they are
 * written, in a copy of the example's folder outside the repository (tests/examples/readme-steps.ts reads the steps).
 *
 * The user's machine:
 * - a shell of its own (bash, one for the whole README, so `export`, `. venv/bin/activate` and the `PATH` the README
 *   sets carry over from block to block, as in a terminal), in an empty home folder (so an empty Pulumi plugin
 *   cache), with the Pulumi CLI, the language's host and toolchain on PATH, and no Node.js unless the example is a
 *   Node.js one;
 * - the release's files as the published packages will be: a folder holding what `npm run release` writes (the
 *   shared build of this run, tests/support/release.ts, and the npm package packed as a clean clone would be), served
 *   by the README's own mirror line (`python3 -m http.server ... --directory "$HELPDESK_RELEASE"`, as written but for
 *   its port), to which `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` sends Pulumi's plugin downloads;
 * - no person to answer: `CI=true` (no prompt, no browser: `login` prints the sign-in URL, which this test opens as
 *   the browser would, the emulator approving at once) and `PULUMI_SKIP_CONFIRMATIONS=true` (the "yes" a person
 *   gives `pulumi up` and `pulumi destroy`);
 * - what a machine's own settings would give, and the README does not name: `PULUMI_HOME` in the empty home folder
 *   (Pulumi takes the account's home folder from the account database, not from `$HOME`: the READMEs say
 *   `pulumi login "file://$HOME/..."` rather than `--local`, which Pulumi resolves there too, out of a test's
 *   sandbox), the shared caches of npm, pip (a wheelhouse of Pulumi's Python SDK: `PIP_FIND_LINKS`, `PIP_NO_INDEX`),
 *   Go and Maven (tests/support/maven.ts), the certificate authorities the machine trusts (`NODE_EXTRA_CA_CERTS`,
 *   `SSL_CERT_FILE`, `SSL_CERT_DIR`), and `PULUMI_NODEJS_TYPESCRIPT=false`, which Pulumi's current Node.js host
 *   sets for `typescript: false` and the one built here does not (docs/design.md "The toolchain").
 *
 * What the README leaves to the person is given by the test, and only through the variables the README names in an
 * earlier step (`export NAME=...` in an untested block): the release folder, the passphrase, the mirror's URL (the
 * README's own regular expression, the port of the test's run of the mirror line), the emulator's settings (as the running emulator prints them),
 * the second help desk's base URL, the source folder of the SDKs that have no release file (Go, Java: a copy of
 * sdk/). The emulators and the mirror are started with the README's own command lines in the same shell (as in
 * another terminal), on ports of the test's (the emulators with `--port 0 --redirect-uri` on a free port, the mirror
 * on a free port in place of the README's): the values the README shows for them must be those they print or serve,
 * but for the ports.
 *
 * Checked after each block: what each emulator holds; after the block that deploys, exactly the README's webhooks,
 * with the ids of the stack's outputs; after the last one, nothing. The README's mirror must have been asked for this
 * machine's plugin archive, once (its request log), by every example that uses the native provider.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellWord } from "../../cli/emulator/emulator.js";
import { completeAuthorizationAutoApproved, EmulatorInspectionClient } from "../../emulator-client/index.js";
import { CLI_EXECUTABLE } from "../../kernel/names.js";
import { required } from "../../kernel/required.js";
import { SETTINGS } from "../../kernel/settings.js";
import { descendantsMatching, shown, waitFor } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { ARCHIVE, linkTools, systemWithoutNode, VERSION } from "../no-node/no-node-desks.js";
import { freePort } from "../support/cli.js";
import { copyExample, EXAMPLES_DIR } from "../support/examples.js";
import { goEnv } from "../support/go.js";
import { machineMavenRepository, mavenEnv, pulumiJavaSdkDownloaded } from "../support/maven.js";
import { packLikeACleanClone } from "../support/package.js";
import { toolVenv, wheelhouse } from "../support/python.js";
import { sharedRelease } from "../support/release.js";
import { sharedCaches } from "../support/sandbox.js";
import { onPath, toolAvailable } from "../support/tools.js";
import {
  EXAMPLE_SPECS,
  type ExampleSpec,
  LOGIN_VARIABLES,
  MINUTE,
  SUPPLIED_VARIABLES,
  type Webhook,
} from "./example-specs.js";
import { type ExportStep, MIRROR_COMMAND, type ReadmeStep, readmeSteps } from "./readme-steps.js";

/** The variables that name the certificate authorities a machine trusts (Node.js's, OpenSSL's). */
const MACHINE_TRUST_VARIABLES = ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"] as const;

/** A URL with its loopback port written as `PORT`: the README's emulators and the test's differ only there. */
const anyPort = (text: string): string => text.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT");

/** The name of a README's example, for messages. */
const readmeOf = (spec: ExampleSpec): string => `examples/${spec.name}/README.md`;

/** Whether the tools an example needs are on this machine (a failure under CI when not: tests/support/tools.ts). */
function ready(spec: ExampleSpec): boolean {
  const has = (what: string, present: boolean): boolean => toolAvailable(`${what} (for ${readmeOf(spec)})`, present);
  return (
    has("the Pulumi CLI", onPath("pulumi")) &&
    spec.hosts.every((host) => has(host, onPath(host))) &&
    (!spec.node || has("npm", onPath("npm"))) &&
    (!spec.python ||
      has(
        `the Python virtualenv ${toolVenv} (scripts/setup.sh --test)`,
        existsSync(join(toolVenv, "bin", "python")),
      )) &&
    (!spec.go || has("go (Go >= 1.25)", onPath("go"))) &&
    (!spec.java ||
      (has("java", onPath("java")) &&
        has("mvn", onPath("mvn")) &&
        has(`Pulumi's Java SDK in ${machineMavenRepository}`, pulumiJavaSdkDownloaded())))
  );
}

/** The release folder's HTTP mirror the README started (its mirror line, on the test's port). */
interface StartedMirror {
  /** The port the README's line names (8000). */
  writtenPort: number;
  /** Where it serves: `http://127.0.0.1:<the test's port>`. */
  url: string;
  /** Its stdout and stderr, where Python's `http.server` logs each request. */
  log: string;
  pid: number;
}

/** Whether something accepts a TCP connection on 127.0.0.1:`port` (no request is sent, so none is logged). */
async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * The requests Python's `http.server` logged, as `METHOD /path` lines, in order.
 *
 * @param log its stderr, lines such as `127.0.0.1 - - [27/Nov/2026 03:50:00] "GET /a.tar.gz HTTP/1.1" 200 -`
 */
function loggedRequests(log: string): string[] {
  return [...log.matchAll(/\] "([A-Z]+) (\S+) HTTP\/[\d.]+" \d{3} /g)].map(([, method, path]) => `${method} ${path}`);
}

/** A running emulator the README started, as it printed itself. */
interface StartedEmulator {
  baseUrl: string;
  /** The login settings' variables of the `export` line it printed. */
  exported: Map<string, string>;
  /** The pid of the process the shell started (`npx` or the CLI). */
  pid: number;
}

/**
 * Sends SIGTERM to a process this test started, if it still runs.
 *
 * @param pid its id, read from the shell or /proc
 * @throws Error for an id that names no single process (0, negative, not a number): `kill` would signal a group
 */
function stop(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 1) throw new Error(`refusing to signal ${pid}: not the id of one process`);
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    // it ended already
  }
}

/**
 * The user's shell: one bash for the whole README. Each block is written to a file and sourced with stdin from
 * /dev/null (a command that reads stdin must not eat the next block), `set -e` ending the shell at the first failing
 * command, as a person would stop there.
 */
class UserShell {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = "";
  stderr = "";
  private steps = 0;
  private readonly ended: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /**
   * @param cwd the project's folder
   * @param env the machine's environment
   * @param scripts where the blocks' files go (outside the project)
   * @param onStderr receives the whole stderr after each chunk
   */
  constructor(
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly scripts: string,
    onStderr: (text: string) => void,
  ) {
    // A process group of its own, like a terminal's: nothing the README starts can signal the test's.
    this.child = spawn("bash", ["--noprofile", "--norc"], {
      cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    this.child.stdout.on("data", (chunk: Buffer) => (this.stdout += chunk.toString()));
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
      onStderr(this.stderr);
    });
    this.ended = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
    this.child.stdin.write("set -eo pipefail\n");
  }

  /**
   * Runs shell text in the shell and waits for it to finish.
   *
   * @param text the commands
   * @param what how failures name them
   * @throws Error with the shell's output when a command fails (the shell has ended then)
   */
  async run(text: string, what: string): Promise<void> {
    const step = ++this.steps;
    const file = join(this.scripts, `step-${step}.sh`);
    writeFileSync(file, `${text}\n`);
    const done = `@@step-${step}-done\n`;
    const finished = new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (!this.stdout.includes(done)) return;
        this.child.stdout.off("data", check);
        resolve(true);
      };
      this.child.stdout.on("data", check);
      void this.ended.then(() => resolve(this.stdout.includes(done)));
    });
    this.child.stdin.write(`. ${shellWord(file)} </dev/null\necho ${done}`);
    if (!(await finished)) {
      const { code, signal } = await this.ended;
      throw new Error(shown(what, { code, signal, stdout: this.stdout, stderr: this.stderr }));
    }
  }

  /** Ends the shell (`exit`), or kills it and what it still runs when it does not end. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      for (const { pid } of descendantsMatching(required(this.child.pid, "the shell's pid"), /./)) stop(pid);
      this.child.stdin.end("exit 0\n");
      await Promise.race([this.ended, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (this.child.exitCode === null) this.child.kill("SIGKILL");
    }
  }
}

/**
 * The values of an `export` line the emulator printed.
 *
 * @param printed the emulator's stdout
 * @throws Error when it printed no `export` line
 */
function printedExport(printed: string): Map<string, string> {
  const line = /^ {2}(export .*)$/m.exec(printed)?.[1];
  if (!line) throw new Error(`the emulator printed no export line:\n${printed}`);
  const steps = readmeSteps(`\`\`\`sh\n${line}\n\`\`\`\n`, "the emulator's output").steps;
  return (steps[0] as ExportStep).values;
}

/** The test's shared material: the release folder as published, and a folder for the examples. */
interface Shared {
  release: string;
  work: string;
}

/**
 * Follows one README.
 *
 * @param spec the example
 * @param shared the release, the test's folder
 */
async function followReadme(spec: ExampleSpec, shared: Shared): Promise<void> {
  const { steps, ignored } = readmeSteps(
    readFileSync(join(EXAMPLES_DIR, spec.name, "README.md"), "utf8"),
    readmeOf(spec),
  );
  const work = mkdtempSync(join(shared.work, `${spec.name}-`));
  const home = join(work, "home");
  const tmp = join(work, "tmp");
  const scripts = join(work, "steps");
  for (const dir of [home, tmp, scripts]) mkdirSync(dir);
  const project = copyExample(spec.name, join(work, spec.name));

  // The machine: PATH, caches, settings (see the module doc).
  const bin = linkTools(join(work, "bin"), [
    "pulumi",
    ...spec.hosts,
    ...(spec.node ? ["node", "npm", "npx"] : []),
    ...(spec.go ? ["go"] : []),
  ]);
  if (spec.python) symlinkSync(realpathSync(join(toolVenv, "bin", "python")), join(bin, "python3"));
  const caches = Object.fromEntries(
    Object.keys(sharedCaches({ HOME: "/" })).flatMap((name) => {
      const value = process.env[name];
      return value ? [[name, value]] : [];
    }),
  );
  // The machine's own trust of TLS certificates (a proxy's authority, as a person's shell has it), so that npm and
  // pip reach their registries as they do outside the test.
  const trust = Object.fromEntries(
    MACHINE_TRUST_VARIABLES.flatMap((name) => {
      const value = process.env[name];
      return value ? [[name, value]] : [];
    }),
  );
  let env: NodeJS.ProcessEnv = {
    PATH: [bin, systemWithoutNode(join(work, "system"))].join(delimiter),
    HOME: home,
    // Pulumi finds its home folder in the account database, not in $HOME: named, as the machine's own would be.
    PULUMI_HOME: join(home, ".pulumi"),
    TMPDIR: tmp,
    LANG: "C.UTF-8",
    CI: "true",
    NO_COLOR: "1",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
    ...caches,
    ...trust,
  };
  if (spec.node) {
    env = {
      ...env,
      npm_config_prefer_offline: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      PULUMI_NODEJS_TYPESCRIPT: "false",
    };
  }
  if (spec.python) {
    env = {
      ...env,
      PIP_FIND_LINKS: await wheelhouse(join(toolVenv, "bin", "python")),
      PIP_NO_INDEX: "1",
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      PYTHONDONTWRITEBYTECODE: "1",
    };
  }
  if (spec.go) env = goEnv(env);
  if (spec.java) env = mavenEnv(env, join(work, "maven-repository"));

  // The browser: each sign-in URL `login` prints is opened once; the emulator approves at once.
  const opened = new Set<string>();
  const browsing: Promise<void>[] = [];
  const shell = new UserShell(project, env, scripts, (stderr) => {
    for (const [url] of stderr.matchAll(/http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+/g)) {
      if (opened.has(url)) continue;
      opened.add(url);
      browsing.push(completeAuthorizationAutoApproved(url));
    }
  });

  const emulators: StartedEmulator[] = [];
  let mirror: StartedMirror | undefined;
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const passphrase = randomBytes(12).toString("hex");
  let source: string | undefined;
  /** The value the test types for a variable the README names (see the module doc). */
  const supplied = (name: string, written: string): string => {
    switch (name) {
      case "HELPDESK_RELEASE":
        return shared.release;
      case "PULUMI_CONFIG_PASSPHRASE":
        return passphrase;
      case "PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES": {
        const [expression, url, ...rest] = written.split("=");
        expect(rest, `${name}=${written}: one pair, <regular expression>=<URL>`).toEqual([]);
        if (!mirror) throw new Error(`${readmeOf(spec)} uses ${name} before its mirror runs`);
        expect(url, `${name}=${written}: the README's mirror, as its line serves it`).toBe(
          `http://127.0.0.1:${mirror.writtenPort}`,
        );
        return `${expression}=${mirror.url}`;
      }
      case "HELPDESK_SOURCE":
        if (!source) {
          // A clone's sdk/ is all the README builds from.
          source = join(work, "source");
          cpSync(join(repoRoot, "sdk"), join(source, "sdk"), {
            recursive: true,
            filter: (path) => !/\/(target|node_modules)(\/|$)/.test(path),
          });
        }
        return source;
      case "EU_HELPDESK_BASE_URL": {
        const second = emulators[1];
        if (!second) throw new Error(`${readmeOf(spec)} uses ${name} before a second emulator runs`);
        return second.baseUrl;
      }
      default: {
        const first = emulators[0];
        if (!LOGIN_VARIABLES.includes(name))
          throw new Error(`${readmeOf(spec)} names ${name}, which the test cannot give a value: a hidden step?`);
        if (!first) throw new Error(`${readmeOf(spec)} uses ${name} before the emulator runs`);
        return first.exported.get(name) ?? "";
      }
    }
  };

  const pending = new Map<string, string>();
  /** Types the variables the README named so far, with the test's values. */
  const exportPending = async (where: string): Promise<void> => {
    for (const [name, written] of pending)
      await shell.run(`export ${name}=${shellWord(supplied(name, written))}`, `${where}: export ${name}`);
    pending.clear();
  };
  let previous: ReadmeStep | undefined;
  let deployedChecked = false;
  const held = async (): Promise<Webhook[][]> =>
    Promise.all(
      emulators.map(async (emulator) =>
        (await new EmulatorInspectionClient(emulator.baseUrl, { connectionPerCall: true }).webhooks()).map(
          ({ id, event, url, state }) => ({ id, event, url, state }),
        ),
      ),
    );
  const byEvent = (hooks: Webhook[]): Webhook[] => [...hooks].sort((a, b) => a.event.localeCompare(b.event));

  try {
    for (const step of steps) {
      const where = `${readmeOf(spec)}:${step.line}`;
      if (step.kind === "export") {
        // What the emulator printed, shown by the README after it: the same, but for the ports.
        if (previous?.kind === "emulator") {
          const emulator = required(emulators.at(-1), "the emulator the README started");
          const euBaseUrl = step.values.get("EU_HELPDESK_BASE_URL");
          if (euBaseUrl !== undefined) {
            expect(anyPort(euBaseUrl), where).toBe(anyPort(emulator.baseUrl));
          } else {
            expect([...step.values.keys()], `${where}: the emulator prints these`).toEqual([
              ...emulator.exported.keys(),
            ]);
            for (const [name, value] of step.values)
              expect(anyPort(value), `${where}: ${name}`).toBe(
                anyPort(required(emulator.exported.get(name), `${name} as the emulator printed it`)),
              );
          }
        }
        for (const [name, value] of step.values) {
          if (!SUPPLIED_VARIABLES.has(name))
            throw new Error(`${where}: ${name} is not a variable the test can give a value`);
          pending.set(name, value);
        }
      } else if (step.kind === "emulator") {
        const n = emulators.length;
        const out = join(work, `emulator-${n}.out`);
        const pidFile = join(work, `emulator-${n}.pid`);
        // As in another terminal, in the background of the same shell; on the test's ports (the last flags win).
        await shell.run(
          `${step.command} --port 0 --redirect-uri ${redirectUri} >${shellWord(out)} 2>&1 &\necho $! >${shellWord(pidFile)}`,
          `${where}: ${step.command}`,
        );
        const printed = await waitFor(
          `${where}: the emulator's sign-in lines`,
          () =>
            existsSync(out) && new RegExp(`^ {2}(?:npx )?${CLI_EXECUTABLE} login `, "m").test(readFileSync(out, "utf8"))
              ? readFileSync(out, "utf8")
              : undefined,
          60_000,
          100,
        );
        // It names the CLI as the README typed it: `npx pulumi-helpdesk login ...` after `npx pulumi-helpdesk emulator`.
        const typed = step.command.startsWith("npx ") ? `npx ${CLI_EXECUTABLE}` : CLI_EXECUTABLE;
        expect(printed, `${where}: the login line it prints`).toMatch(
          new RegExp(`^ {2}${typed} login --stack dev$`, "m"),
        );
        const exported = printedExport(printed);
        emulators.push({
          baseUrl: required(exported.get(SETTINGS.baseUrl.env), `${SETTINGS.baseUrl.env} as the emulator printed it`),
          exported,
          pid: Number(readFileSync(pidFile, "utf8").trim()),
        });
      } else if (step.kind === "mirror") {
        if (mirror) throw new Error(`${where}: a second mirror`);
        await exportPending(where); // its line names $HELPDESK_RELEASE
        const port = await freePort();
        const log = join(work, "mirror.log");
        const pidFile = join(work, "mirror.pid");
        // As in another terminal, in the background of the same shell: the line as written, on the test's port.
        const command = step.command.replace(MIRROR_COMMAND, `$1${port}`);
        await shell.run(
          `${command} >${shellWord(log)} 2>&1 &\necho $! >${shellWord(pidFile)}`,
          `${where}: ${step.command}`,
        );
        await waitFor(
          `${where}: the mirror listening on port ${port} (its output: ${log})`,
          () => accepting(port),
          30_000,
          100,
        );
        mirror = {
          writtenPort: step.port,
          url: `http://127.0.0.1:${port}`,
          log,
          pid: Number(readFileSync(pidFile, "utf8").trim()),
        };
      } else {
        await exportPending(where);
        const began = Date.now();
        await shell.run(step.commands, `${where}: the block\n${step.commands}\n`);
        console.info(`${where}: ${((Date.now() - began) / 1000).toFixed(1)} s for\n${step.commands}`);
        await Promise.all(browsing);
        const holding = await held();
        if (!deployedChecked && holding.some((hooks) => hooks.length > 0)) {
          const outputsFile = join(work, "outputs.json");
          await shell.run(
            `pulumi stack output --json --stack dev >${shellWord(outputsFile)}`,
            "pulumi stack output (the test's check)",
          );
          const expected = spec.deployed(JSON.parse(readFileSync(outputsFile, "utf8")) as Record<string, unknown>);
          expect(holding.map(byEvent), `${where}: what the help desks hold after it`).toEqual(expected.map(byEvent));
          deployedChecked = true;
        }
      }
      previous = step;
    }
    expect(
      deployedChecked,
      `${readmeOf(spec)}: no block deployed the webhooks (ignored lines: ${ignored.map((l) => l.text).join(" | ")})`,
    ).toBe(true);
    expect(await held(), `${readmeOf(spec)}: what the help desks hold at the end`).toEqual(emulators.map(() => []));
    expect(
      mirror ? loggedRequests(readFileSync(mirror.log, "utf8")) : [],
      `${readmeOf(spec)}: what its mirror was asked`,
    ).toEqual(spec.plugin ? [`GET /${ARCHIVE}`] : []);
    if (spec.plugin) expect(readdirSync(join(home, ".pulumi", "plugins"))).toContain(`resource-helpdesk-v${VERSION}`);
  } finally {
    for (const { pid } of [...emulators, ...(mirror ? [mirror] : [])])
      for (const ended of [...descendantsMatching(pid, /./).map((child) => child.pid), pid]) stop(ended);
    await shell.close();
    rmSync(work, { recursive: true, force: true });
  }
}

describe("the examples' READMEs, typed as written by a new user, against the emulator and the release's files", () => {
  let shared: Shared | undefined;
  let work: string | undefined;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "helpdesk-readmes-"));
    // The release folder as `npm run release` writes it: this run's shared build, and the npm package it leaves out.
    const built = await sharedRelease();
    const release = join(work, `pulumi-helpdesk-${VERSION}`);
    mkdirSync(release);
    for (const name of readdirSync(built))
      if (statSync(join(built, name)).isFile()) symlinkSync(join(built, name), join(release, name));
    const packed = packLikeACleanClone(join(work, "pack"));
    symlinkSync(packed.path, join(release, `pulumi-helpdesk-${VERSION}.tgz`));
    shared = { release, work };
  }, 15 * MINUTE);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const spec of EXAMPLE_SPECS) {
    it.skipIf(!ready(spec))(
      `examples/${spec.name}`,
      async () => {
        const started = Date.now();
        await followReadme(spec, required(shared, "the release (beforeAll)"));
        console.info(`${readmeOf(spec)}: followed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      },
      spec.timeout,
    );
  }
});
