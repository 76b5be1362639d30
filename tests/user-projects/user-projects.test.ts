/**
 * The package the way users install it: `npm pack` of a clean copy of the repository, installed into fresh Pulumi
 * projects outside the repository (each with its own package.json, tsconfig.json and `@pulumi/pulumi`), then what a
 * user does there: `npx pulumi-helpdesk login` against the emulator, `pulumi up` and `pulumi destroy` with the real
 * Pulumi CLI, checking the emulator's webhooks after each. A shape that fails is a failure, never a skip.
 *
 * TypeScript shapes run with `PULUMI_NODEJS_TYPESCRIPT=true`: what Pulumi's current Node.js language host sets by
 * default (runtime option `typescript`, default true), so `@pulumi/pulumi` type-checks the program with ts-node as in
 * a user's project. The language host built here (v3.68) does not set it itself (scripts/pulumi-build/README.md).
 *
 * Two more shapes use the native provider plugin from the installed package (Pulumi.yaml `plugins.providers` path
 * `node_modules/pulumi-helpdesk/plugin`) with two help desks, each an emulator: the default provider on the stack's
 * `helpdesk:*` config (`npx pulumi-helpdesk login`) and an explicit provider on its `eu:*` config (`npx
 * pulumi-helpdesk login --namespace eu`). One is today's TypeScript template with `pulumi-helpdesk/native`, which
 * also checks `npx pulumi-helpdesk plugin install` into a Pulumi home of its own; the other is Python with the SDK
 * that `pip` installs from the repository's generated `sdk/python` (what the release's wheel is built from; the wheel
 * itself, with no Node.js at all, is tests/no-node/python.test.ts), run with `$HELPDESK_PYTHON_VENV/bin` first on
 * PATH (Pulumi's Python SDK; the language host built here ignores `runtime.options.virtualenv`).
 */

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_CLIENT, startEmulator } from "../../emulator/index.js";
import { nodeVersionProblem, SUPPORTED_NODE_RANGE } from "../../kernel/node-support.js";
import { required } from "../../kernel/required.js";
import { type Ran, runCommand as run, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { serveRelease } from "../no-node/no-node-desks.js";
import { freePort, loginThrough } from "../support/cli.js";
import { type PackedTarball, packLikeACleanClone } from "../support/package.js";
import { pulumiAvailable } from "../support/pulumi.js";
import { pulumiEnv } from "../support/pulumi-cli.js";
import { toolVenv, withPythonSdk } from "../support/python.js";
import { onPath } from "../support/tools.js";
import {
  DECLARED_WEBHOOKS,
  type Desk,
  NATIVE_WEBHOOKS,
  nativeShapes,
  type ProjectShape,
  projectShapes,
} from "./shapes.js";

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  peerDependencies: Record<string, string>;
};
/** The oldest supported `@pulumi/pulumi`: the floor of the package's own peer range (one home: package.json). */
const oldestPulumi =
  /^\^?(\d+\.\d+\.\d+)/.exec(manifest.peerDependencies["@pulumi/pulumi"] ?? "")?.[1] ?? "unparsable peer range";
const shapes = projectShapes(oldestPulumi);
const native = nativeShapes();

/** Every installed copy of a package under a project's node_modules, nested ones included. */
function installedCopies(projectDir: string, name: string): string[] {
  const found: string[] = [];
  const visit = (modules: string): void => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      const scoped = entry.startsWith("@") ? readdirSync(join(modules, entry)).map((n) => join(entry, n)) : [entry];
      for (const pkg of scoped) {
        const dir = join(modules, pkg);
        if (pkg === name && existsSync(join(dir, "package.json"))) found.push(dir);
        visit(join(dir, "node_modules"));
      }
    }
  };
  visit(join(projectDir, "node_modules"));
  return found;
}

interface Row {
  shape: string;
  result: string;
  seconds: number;
  pulumiVersion: string;
}

let workRoot: string;
let tarball: PackedTarball;
const rows: Row[] = [];
const installs = new Map<string, Promise<Ran>>();

/** The `npm install` of a project shape, started by beforeAll. */
function installOf(shape: ProjectShape): Promise<Ran> {
  return required(installs.get(shape.name), `the npm install of ${shape.name}`);
}

/** The project shape named `name`. */
function shapeNamed(name: string): ProjectShape {
  return required(
    shapes.find((shape) => shape.name === name),
    `the project shape ${name}`,
  );
}

/** The environment of a user's shell in a project: Node 24 and the Pulumi CLI on PATH, a file:// backend. */
function projectEnv(dir: string, shape: ProjectShape): NodeJS.ProcessEnv {
  return {
    ...pulumiEnv(`file://${join(dir, ".state")}`, join(dir, ".token-cache")),
    PULUMI_NODEJS_TYPESCRIPT: shape.typescript ? "true" : "false",
  };
}

function projectDir(shape: ProjectShape): string {
  return join(workRoot, shape.name);
}

/** The project's Pulumi.yaml; `plugins: false` leaves out {@link ProjectShape.pulumiYamlExtra} (the plugin's path). */
function pulumiYaml(shape: ProjectShape, options: { plugins?: boolean } = {}): string {
  const extra = options.plugins === false ? "" : (shape.pulumiYamlExtra ?? "");
  return `name: ${shape.name}\nruntime: ${shape.runtime ?? "nodejs"}\ndescription: ${JSON.stringify(`pulumi-helpdesk in a ${shape.title} project`)}\n${extra}`;
}

/** Writes the project and starts its `npm install` (all shapes install at once; npm's cache is shared). */
function createProject(shape: ProjectShape): void {
  const dir = projectDir(shape);
  mkdirSync(join(dir, ".state"), { recursive: true });
  const pkg = {
    name: shape.name,
    version: "1.0.0",
    private: true,
    ...shape.packageFields,
    dependencies: { ...shape.dependencies, "pulumi-helpdesk": `file:${tarball.path}` },
    devDependencies: shape.devDependencies,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(join(dir, "Pulumi.yaml"), pulumiYaml(shape));
  for (const [file, text] of Object.entries(shape.files)) writeFileSync(join(dir, file), text);
  installs.set(
    shape.name,
    run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
      cwd: dir,
      env: projectEnv(dir, shape),
    }),
  );
}

interface ListedWebhook {
  id: string;
  event: string;
  url: string;
}

async function emulatorWebhooks(baseUrl: string): Promise<ListedWebhook[]> {
  const response = await request(`${baseUrl}/_emulator/webhooks`);
  return ((await response.body.json()) as { webhooks: ListedWebhook[] }).webhooks;
}

/** An OAuth client that an emulator registers and `login` signs in with. */
interface Client {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  name?: string;
}

/** A client like the emulator's default one, on a loopback redirect URI with a free port. */
async function loopbackClient(overrides: Partial<Client> = {}): Promise<Client> {
  return { ...DEFAULT_CLIENT, redirectUri: `http://127.0.0.1:${await freePort()}/callback`, ...overrides };
}

/**
 * `npx pulumi-helpdesk login --stack dev` in the project, as a user types it (client secret in
 * `HELPDESK_CLIENT_SECRET`); the test plays the browser against the auto-approving emulator.
 *
 * @param namespace `--namespace` (default none: `helpdesk:*`)
 */
async function npxLogin(
  dir: string,
  env: NodeJS.ProcessEnv,
  baseUrl: string,
  client: Client,
  namespace?: string,
): Promise<Ran> {
  return loginThrough(
    ["npx", "--no-install", "pulumi-helpdesk"],
    { stack: "dev", baseUrl, client, ...(namespace ? { namespace } : {}) },
    { cwd: dir, env },
  );
}

beforeAll(() => {
  expect(pulumiAvailable()).toBe(true); // a missing CLI is a failure here, never a skip
  workRoot = mkdtempSync(join(tmpdir(), "helpdesk-user-projects-"));
  tarball = packLikeACleanClone(join(workRoot, "pack"));
  for (const shape of [...shapes, ...native]) createProject(shape);
}, 300_000);

afterAll(async () => {
  await Promise.allSettled(installs.values());
  console.log(
    [
      `pulumi-helpdesk ${manifest.version} tarball: ${tarball?.files.length} files, ${tarball?.size} bytes packed, ${tarball?.unpackedSize} unpacked`,
      "| shape | @pulumi/pulumi | result | seconds (install excluded) |",
      "|---|---|---|---|",
      ...rows.map((r) => `| ${r.shape} | ${r.pulumiVersion} | ${r.result} | ${r.seconds.toFixed(1)} |`),
    ].join("\n"),
  );
  if (workRoot && process.env.HELPDESK_KEEP_USER_PROJECTS !== "1") rmSync(workRoot, { recursive: true, force: true });
});

describe("the npm package", () => {
  it("is built by prepack from a clean copy and holds what a user needs, and nothing else", () => {
    const files = tarball.files;
    for (const needed of [
      "package.json",
      "README.md",
      "LICENSE",
      "dist/program/index.js",
      "dist/program/index.d.ts",
      "dist/cjs-types/program/index.d.ts",
      "dist/cjs-types/package.json",
      "dist/provider/dynamic/index.js",
      "dist/emulator/index.js",
      "dist/kernel/records.js",
      "dist/bin/pulumi-helpdesk.js",
    ]) {
      expect(files, needed).toContain(needed);
    }
    const unwanted = files.filter(
      (f) =>
        /^(tests|scripts|bench|examples|emulator|sdk|provider|cli)\//.test(f) ||
        f.endsWith(".map") ||
        (f.endsWith(".ts") && !f.endsWith(".d.ts")),
    );
    expect(unwanted).toEqual([]);
    const manifestInTarball = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
      files: string[];
      engines: { node: string };
    };
    expect(manifestInTarball.engines.node).toBe(SUPPORTED_NODE_RANGE);
  });
});

/**
 * The plugin is for native programs only: a program that uses only the dynamic `Webhook` must not make Pulumi look for
 * it (the main package has no package.json "pulumi" section, which the Node.js language host would report). Run with
 * automatic plugin acquisition on, an empty plugin cache and every download sent to a local server that records what
 * it is asked: `pulumi preview` of a dynamic project succeeds and asks for nothing. (tests/release/typescript-sdk.test.ts
 * is the other side: a program of the TypeScript SDK makes the same set-up download the plugin.)
 */
describe("a program that uses only the dynamic Webhook", () => {
  it("makes Pulumi look for no plugin: no download asked, nothing in an empty plugin cache", async () => {
    const shape = shapeNamed("js-esm");
    const dir = projectDir(shape);
    const install = await installOf(shape);
    expect(install.code, shown("npm install", install)).toBe(0);
    const work = mkdtempSync(join(tmpdir(), "helpdesk-no-plugin-"));
    const mirror = await serveRelease(work);
    try {
      const pulumiHome = join(work, "pulumi-home");
      mkdirSync(pulumiHome);
      const env: NodeJS.ProcessEnv = {
        ...projectEnv(dir, shape),
        PULUMI_HOME: pulumiHome,
        PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `.*=${mirror.url}`,
      };
      delete env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
      const stack = "noplugin";
      for (const args of [
        ["stack", "init"],
        ["config", "set", "helpdesk:baseUrl", "http://127.0.0.1:9"],
        ["config", "set", "--secret", "helpdesk:accessToken", "a-token-of-this-test"],
      ]) {
        const ran = await run("pulumi", [...args, "--stack", stack, "--non-interactive"], { cwd: dir, env });
        expect(ran.code, shown(`pulumi ${args.join(" ")}`, ran)).toBe(0);
      }
      const preview = await run("pulumi", ["preview", "--stack", stack, "--non-interactive"], { cwd: dir, env });
      expect(preview.code, shown("pulumi preview", preview)).toBe(0);
      expect(preview.stdout).toContain("dynamic/helpdesk:Webhook");
      expect(mirror.requests).toEqual([]);
      expect(existsSync(join(pulumiHome, "plugins")) ? readdirSync(join(pulumiHome, "plugins")) : []).toEqual([]);
      await run("pulumi", ["stack", "rm", "--yes", "--force", "--stack", stack, "--non-interactive"], {
        cwd: dir,
        env,
      });
    } finally {
      await mirror.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe.each(shapes)("a $name project", (shape) => {
  it("installs one @pulumi/pulumi, signs in, and runs pulumi up and destroy", async () => {
    const dir = projectDir(shape);
    const env = projectEnv(dir, shape);
    const install = await installOf(shape);
    expect(install.code, shown("npm install", install)).toBe(0);
    const started = performance.now();
    const pulumiCopies = installedCopies(dir, "@pulumi/pulumi");
    const pulumiVersion = pulumiCopies
      .map((copy) => (JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as { version: string }).version)
      .join(", ");
    const row: Row = { shape: shape.title, result: "failed", seconds: 0, pulumiVersion };
    rows.push(row);
    expect(pulumiCopies, "exactly one @pulumi/pulumi in node_modules").toHaveLength(1);
    if (shape.name.startsWith("ts-commonjs-node10")) expect(pulumiVersion).toBe(oldestPulumi);

    for (const tsconfig of shape.typescript ? ["tsconfig.json", ...shape.extraTypeChecks] : []) {
      const typeCheck = await run(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", tsconfig], {
        cwd: dir,
        env,
      });
      expect(typeCheck.code, shown(`tsc -p ${tsconfig}`, typeCheck)).toBe(0);
    }

    const client = await loopbackClient();
    const emulator = await startEmulator({ port: 0, clients: [client], autoApprove: true });
    try {
      const login = await npxLogin(dir, env, emulator.url, client);
      expect(login.code, shown("pulumi-helpdesk login", login)).toBe(0);

      const up = await run("pulumi", ["up", "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"], {
        cwd: dir,
        env,
      });
      expect(up.code, shown("pulumi up", up)).toBe(0);
      const created = await emulatorWebhooks(emulator.url);
      expect(created.map(({ event, url }) => ({ event, url })).sort((a, b) => a.event.localeCompare(b.event))).toEqual(
        DECLARED_WEBHOOKS.map(({ event, url }) => ({ event, url })).sort((a, b) => a.event.localeCompare(b.event)),
      );
      const outputs = await run("pulumi", ["stack", "output", "ids", "--json", "--stack", "dev"], { cwd: dir, env });
      expect((JSON.parse(outputs.stdout) as string[]).sort()).toEqual(created.map((hook) => hook.id).sort());

      const destroy = await run(
        "pulumi",
        ["destroy", "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"],
        { cwd: dir, env },
      );
      expect(destroy.code, shown("pulumi destroy", destroy)).toBe(0);
      expect(await emulatorWebhooks(emulator.url)).toEqual([]);
      row.result = "works";
    } finally {
      row.seconds = (performance.now() - started) / 1000;
      await emulator.close();
    }
  });
});

/**
 * The environment of a Python program in the project: `pulumi_helpdesk` installed by pip from the repository's
 * `sdk/python` (into a target directory of the project: never into the shared virtualenv), and
 * the virtualenv's bin/ first on PATH (its `python` has Pulumi's Python SDK).
 *
 * @returns the environment, and the version of Pulumi's Python SDK
 */
async function pythonProject(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ env: NodeJS.ProcessEnv; pulumiVersion: string }> {
  const python = join(toolVenv, "bin", "python");
  // A missing tool is a failure, never a skip (npm test's scripts/setup.sh --test provides both).
  expect(existsSync(python), `the Python virtualenv ${toolVenv} (scripts/setup.sh --test makes it)`).toBe(true);
  expect(
    onPath("pulumi-language-python") && onPath("pulumi-language-python-exec"),
    "pulumi-language-python on PATH (scripts/setup.sh --test)",
  ).toBe(true);
  const pythonEnv = await withPythonSdk(dir, env);
  const version = await run(
    "python",
    ["-c", "import importlib.metadata as m, pulumi_helpdesk; print(m.version('pulumi'))"],
    { cwd: dir, env: pythonEnv },
  );
  expect(version.code, shown("python -c 'import pulumi_helpdesk'", version)).toBe(0);
  return { env: pythonEnv, pulumiVersion: `${version.stdout.trim()} (Python)` };
}

/**
 * `npx pulumi-helpdesk plugin install`, the README's other way to make the plugin found, into a Pulumi home of its
 * own so the machine's plugin cache is left alone. The `pulumi` the command runs is found on PATH (scripts/lib/env.sh
 * puts `$PULUMI_HOME/versions/<v>/bin` there once, as an absolute path), so an empty PULUMI_HOME works: nothing of the
 * real one needs linking in (measured with v3.259.0). With Pulumi.yaml's `plugins:` taken out, `pulumi preview` on
 * the stack just deployed fails before the install (so nothing else supplies the plugin) and finds no change after
 * it (Pulumi ran the cached plugin).
 */
async function checkPluginInstall(shape: ProjectShape, dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const pulumiHome = mkdtempSync(join(workRoot, "pulumi-home-"));
  const homeEnv = { ...env, PULUMI_HOME: pulumiHome };
  const preview = (): Promise<Ran> =>
    run("pulumi", ["preview", "--expect-no-changes", "--stack", "dev", "--non-interactive"], {
      cwd: dir,
      env: homeEnv,
    });
  writeFileSync(join(dir, "Pulumi.yaml"), pulumiYaml(shape, { plugins: false }));
  try {
    const before = await preview();
    expect(before.code, shown("pulumi preview before plugin install (expected to fail)", before)).not.toBe(0);
    expect(`${before.stdout}${before.stderr}`).toContain("no resource plugin 'pulumi-resource-helpdesk' found");

    const install = await run("npx", ["--no-install", "pulumi-helpdesk", "plugin", "install"], {
      cwd: dir,
      env: homeEnv,
    });
    expect(install.code, shown("pulumi-helpdesk plugin install", install)).toBe(0);
    const cached = join(pulumiHome, "plugins", `resource-helpdesk-v${manifest.version}`);
    expect(`${install.stdout}${install.stderr}`).toContain(cached);
    expect(realpathSync(readFileSync(join(cached, "package-root"), "utf8").trim())).toBe(
      realpathSync(join(dir, "node_modules", "pulumi-helpdesk")),
    );
    const listed = await run("pulumi", ["plugin", "ls", "--json"], { cwd: dir, env: homeEnv });
    expect(listed.code, shown("pulumi plugin ls", listed)).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as Array<{ kind: string; name: string; version: string }>).map(
        (p) => `${p.kind} ${p.name} ${p.version}`,
      ),
    ).toEqual([`resource helpdesk ${manifest.version}`]);

    const after = await preview();
    expect(
      after.code,
      shown("pulumi preview with the plugin from `plugin install` (no plugins: in Pulumi.yaml)", after),
    ).toBe(0);
  } finally {
    writeFileSync(join(dir, "Pulumi.yaml"), pulumiYaml(shape));
  }
}

describe.each(native)("a $name project (native provider plugin, two help desks)", (shape) => {
  it("signs both in, and pulumi up and destroy manage one webhook on each through the plugin in node_modules", async () => {
    const dir = projectDir(shape);
    let env = projectEnv(dir, shape);
    const install = await installOf(shape);
    expect(install.code, shown("npm install", install)).toBe(0);
    const started = performance.now();
    const row: Row = { shape: shape.title, result: "failed", seconds: 0, pulumiVersion: "" };
    rows.push(row);
    const desks: Desk[] = ["home", "eu"];
    const emulators = new Map<Desk, Awaited<ReturnType<typeof startEmulator>>>();
    try {
      if (shape.runtime === "python") {
        const python = await pythonProject(dir, env);
        env = python.env;
        row.pulumiVersion = python.pulumiVersion;
      } else {
        const pulumiCopies = installedCopies(dir, "@pulumi/pulumi");
        row.pulumiVersion = pulumiCopies
          .map((copy) => (JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as { version: string }).version)
          .join(", ");
        expect(pulumiCopies, "exactly one @pulumi/pulumi in node_modules").toHaveLength(1);
        for (const tsconfig of shape.typescript ? ["tsconfig.json", ...shape.extraTypeChecks] : []) {
          const typeCheck = await run(
            process.execPath,
            ["node_modules/typescript/bin/tsc", "--noEmit", "-p", tsconfig],
            { cwd: dir, env },
          );
          expect(typeCheck.code, shown(`tsc -p ${tsconfig}`, typeCheck)).toBe(0);
        }
      }
      // The folder Pulumi.yaml names is the one `plugin path` prints, and its launcher is executable.
      const pluginPath = await run("npx", ["--no-install", "pulumi-helpdesk", "plugin", "path"], { cwd: dir, env });
      expect(pluginPath.code, shown("pulumi-helpdesk plugin path", pluginPath)).toBe(0);
      expect(realpathSync(pluginPath.stdout.trim())).toBe(
        realpathSync(join(dir, "node_modules", "pulumi-helpdesk", "plugin")),
      );

      const clients: Record<Desk, Client> = {
        home: await loopbackClient(),
        eu: await loopbackClient({
          clientId: "helpdesk-eu",
          clientSecret: "eu-client-secret-value",
          name: "eu help desk",
        }),
      };
      for (const desk of desks)
        emulators.set(desk, await startEmulator({ port: 0, clients: [clients[desk]], autoApprove: true }));
      for (const desk of desks) {
        const login = await npxLogin(
          dir,
          env,
          required(emulators.get(desk), `the ${desk} emulator`).url,
          clients[desk],
          desk === "eu" ? "eu" : undefined,
        );
        expect(login.code, shown(`pulumi-helpdesk login (${desk})`, login)).toBe(0);
      }
      const shownConfig = await run("pulumi", ["config", "--show-secrets", "--json", "--stack", "dev"], {
        cwd: dir,
        env,
      });
      expect(shownConfig.code, shown("pulumi config", shownConfig)).toBe(0);
      const config = JSON.parse(shownConfig.stdout) as Record<string, { value?: string; secret?: boolean }>;
      const credentials: string[] = [];
      for (const namespace of ["helpdesk", "eu"]) {
        for (const key of ["accessToken", "refreshToken", "clientSecret"]) {
          const entry = config[`${namespace}:${key}`];
          expect(entry?.secret, `${namespace}:${key} is a secret`).toBe(true);
          expect(entry?.value, `${namespace}:${key}`).toBeTruthy();
          credentials.push(required(entry?.value, `config ${namespace}:${key}`));
        }
      }

      const up = await run("pulumi", ["up", "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"], {
        cwd: dir,
        env,
      });
      expect(up.code, shown("pulumi up", up)).toBe(0);
      const outputs = await run("pulumi", ["stack", "output", "--json", "--stack", "dev"], { cwd: dir, env });
      const { ids, euRepliedState } = JSON.parse(outputs.stdout) as {
        ids: Record<Desk, string[]>;
        euRepliedState: string;
      };
      for (const desk of desks) {
        const held = await emulatorWebhooks(required(emulators.get(desk), `the ${desk} emulator`).url);
        expect(
          held.map(({ event, url }) => ({ event, url })),
          `webhooks on the ${desk} help desk`,
        ).toEqual(NATIVE_WEBHOOKS.filter((hook) => hook.desk === desk).map(({ event, url }) => ({ event, url })));
        expect(ids[desk], `ids of the ${desk} webhooks`).toEqual(held.map((hook) => hook.id));
      }
      expect(euRepliedState).toBe("active");

      const exported = await run("pulumi", ["stack", "export", "--stack", "dev"], { cwd: dir, env });
      expect(exported.code, shown("pulumi stack export", exported)).toBe(0);
      expect(exported.stdout).toContain("helpdesk:index:Webhook");
      expect(exported.stdout).toContain("pulumi:providers:helpdesk");
      for (const credential of credentials)
        expect(exported.stdout.includes(credential), "a credential in plain text in the state").toBe(false);
      for (const hook of NATIVE_WEBHOOKS.filter((h) => h.secret))
        expect(exported.stdout.includes(hook.url), `the secret url of ${hook.name} in plain text`).toBe(false);

      if (shape.typescript) await checkPluginInstall(shape, dir, env);

      const destroy = await run(
        "pulumi",
        ["destroy", "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"],
        { cwd: dir, env },
      );
      expect(destroy.code, shown("pulumi destroy", destroy)).toBe(0);
      for (const desk of desks)
        expect(
          await emulatorWebhooks(required(emulators.get(desk), `the ${desk} emulator`).url),
          `webhooks left on the ${desk} help desk`,
        ).toEqual([]);
      row.result = "works";
    } finally {
      row.seconds = (performance.now() - started) / 1000;
      for (const emulator of emulators.values()) await emulator.close();
    }
  });
});

describe("on a Node.js older than the package needs", () => {
  const oldNode = process.env.HELPDESK_TEST_OLD_NODE;

  it("the CLI, the SDK, the provider and the emulator each stop with one line naming the versions", async () => {
    if (!oldNode && process.env.CI === "true")
      throw new Error(
        "HELPDESK_TEST_OLD_NODE is not set: run the tests with `npm test` (scripts/setup.sh --test installs Node 20)",
      );
    const old = required(oldNode, "HELPDESK_TEST_OLD_NODE (a Node.js the package does not support)");
    expect(old).toBeTruthy();
    const shape = shapeNamed("js-commonjs");
    const dir = projectDir(shape);
    expect((await installOf(shape)).code).toBe(0);
    const oldBin = join(old, "..");
    const env = { ...projectEnv(dir, shape), PATH: `${oldBin}:${process.env.PATH ?? ""}` };
    const version = (await run(old, ["-p", "process.versions.node"], { cwd: dir, env })).stdout.trim();
    expect(version.startsWith("20."), `old node is ${version}`).toBe(true);
    const needs = nodeVersionProblem(version);
    expect(needs, `Node.js ${version} is supported`).toBeDefined();

    const help = await run("npx", ["--no-install", "pulumi-helpdesk", "--help"], { cwd: dir, env });
    expect(help.code).toBe(1);
    // One line of ours; npm may add its own warnings about the user's npm config before it.
    const ours = help.stderr
      .trim()
      .split("\n")
      .filter((line) => !line.startsWith("npm warn"));
    expect(ours).toEqual([`error: ${needs}`]);

    for (const [entry, load] of [
      ["pulumi-helpdesk", `require("pulumi-helpdesk")`],
      ["pulumi-helpdesk/provider", `import("pulumi-helpdesk/provider")`],
      ["pulumi-helpdesk/emulator", `import("pulumi-helpdesk/emulator")`],
    ] as const) {
      const script = `Promise.resolve().then(() => ${load}).then(() => console.log("loaded"), (e) => { console.log(e.message); process.exit(3); })`;
      const loaded = await run(old, ["-e", script], { cwd: dir, env });
      expect(loaded.code, `${entry}: ${loaded.stdout}${loaded.stderr}`).toBe(3);
      expect(loaded.stdout.trim(), entry).toContain(needs);
    }
  });
});
