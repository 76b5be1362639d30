/**
 * The package the way users install it: `npm pack` of a clean copy of the repository, installed into fresh Pulumi
 * projects outside the repository (each with its own package.json, tsconfig.json and `@pulumi/pulumi`), then what a
 * user does there: `npx pulumi-helpdesk login` against the emulator, `pulumi up` and `pulumi destroy` with the real
 * Pulumi CLI, checking the emulator's webhooks after each. A shape that fails is a failure, never a skip.
 *
 * TypeScript shapes run with `PULUMI_NODEJS_TYPESCRIPT=true`: what Pulumi's current Node.js language host sets by
 * default (runtime option `typescript`, default true), so `@pulumi/pulumi` type-checks the program with ts-node as in
 * a user's project. The language host built here (v3.68) does not set it itself (scripts/pulumi-build/README.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeAuthorizationAutoApproved, DEFAULT_CLIENT, startEmulator } from "../../emulator/index.js";
import { MINIMUM_NODE_VERSION } from "../../sdk/node-support.js";
import { freePort } from "../support/cli.js";
import { packLikeACleanClone, repoRoot, type PackedTarball } from "../support/package.js";
import { runCommand as run, shown, type Ran } from "../support/processes.js";
import { pulumiAvailable } from "../support/pulumi.js";
import { DECLARED_WEBHOOKS, projectShapes, type ProjectShape } from "./shapes.js";

const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  version: string;
  peerDependencies: Record<string, string>;
};
/** The oldest supported `@pulumi/pulumi`: the floor of the package's own peer range (one home: package.json). */
const oldestPulumi = /^\^?(\d+\.\d+\.\d+)/.exec(manifest.peerDependencies["@pulumi/pulumi"] ?? "")?.[1] ?? "unparsable peer range";
const shapes = projectShapes(oldestPulumi);

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

/** The environment of a user's shell in a project: Node 24 and the Pulumi CLI on PATH, a file:// backend. */
function projectEnv(dir: string, shape: ProjectShape): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${join(dir, ".state")}`,
    PULUMI_CONFIG_PASSPHRASE: "user-project-passphrase",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    HELPDESK_TOKEN_CACHE_DIR: join(dir, ".token-cache"),
    CI: "true",
    NO_COLOR: "1",
    PULUMI_NODEJS_TYPESCRIPT: shape.typescript ? "true" : "false",
  };
  for (const name of ["HELPDESK_BASE_URL", "HELPDESK_CLIENT_ID", "HELPDESK_CLIENT_SECRET", "HELPDESK_REDIRECT_URI", "HELPDESK_ACCESS_TOKEN", "NODE_OPTIONS", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID"]) {
    delete env[name];
  }
  return env;
}

function projectDir(shape: ProjectShape): string {
  return join(workRoot, shape.name);
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
  writeFileSync(join(dir, "Pulumi.yaml"), `name: ${shape.name}\nruntime: nodejs\ndescription: ${JSON.stringify(`pulumi-helpdesk in a ${shape.title} project`)}\n`);
  for (const [file, text] of Object.entries(shape.files)) writeFileSync(join(dir, file), text);
  installs.set(shape.name, run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], { cwd: dir, env: projectEnv(dir, shape) }));
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

beforeAll(() => {
  expect(pulumiAvailable()).toBe(true); // a missing CLI is a failure here, never a skip
  workRoot = mkdtempSync(join(tmpdir(), "helpdesk-user-projects-"));
  tarball = packLikeACleanClone(join(workRoot, "pack"));
  for (const shape of shapes) createProject(shape);
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
    for (const needed of ["package.json", "README.md", "LICENSE", "dist/sdk/index.js", "dist/sdk/index.d.ts", "dist/cjs-types/sdk/index.d.ts", "dist/cjs-types/package.json", "dist/provider/index.js", "dist/emulator/index.js", "dist/sdk/records.js", "dist/cli/bin.js"]) {
      expect(files, needed).toContain(needed);
    }
    const unwanted = files.filter((f) => /^(tests|scripts|bench|examples|emulator|sdk|provider|cli)\//.test(f) || f.endsWith(".map") || (f.endsWith(".ts") && !f.endsWith(".d.ts")));
    expect(unwanted).toEqual([]);
    const manifestInTarball = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { files: string[]; engines: { node: string } };
    expect(manifestInTarball.engines.node).toBe(`>=${MINIMUM_NODE_VERSION}`);
  });
});

describe.each(shapes)("a $name project", (shape) => {
  it("installs one @pulumi/pulumi, signs in, and runs pulumi up and destroy", async () => {
    const dir = projectDir(shape);
    const env = projectEnv(dir, shape);
    const install = await installs.get(shape.name)!;
    expect(install.code, shown("npm install", install)).toBe(0);
    const started = performance.now();
    const pulumiCopies = installedCopies(dir, "@pulumi/pulumi");
    const pulumiVersion = pulumiCopies.map((copy) => (JSON.parse(readFileSync(join(copy, "package.json"), "utf8")) as { version: string }).version).join(", ");
    const row: Row = { shape: shape.title, result: "failed", seconds: 0, pulumiVersion };
    rows.push(row);
    expect(pulumiCopies, "exactly one @pulumi/pulumi in node_modules").toHaveLength(1);
    if (shape.name.startsWith("ts-commonjs-node10")) expect(pulumiVersion).toBe(oldestPulumi);

    for (const tsconfig of shape.typescript ? ["tsconfig.json", ...shape.extraTypeChecks] : []) {
      const typeCheck = await run(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", tsconfig], { cwd: dir, env });
      expect(typeCheck.code, shown(`tsc -p ${tsconfig}`, typeCheck)).toBe(0);
    }

    const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
    const emulator = await startEmulator({ port: 0, clients: [{ ...DEFAULT_CLIENT, redirectUri }], autoApprove: true });
    try {
      let browsed: Promise<void> | undefined;
      const login = await run(
        "npx",
        ["--no-install", "pulumi-helpdesk", "login", "--stack", "dev", "--base-url", emulator.url, "--client-id", DEFAULT_CLIENT.clientId, "--redirect-uri", redirectUri, "--no-browser", "--timeout", "120"],
        {
          cwd: dir,
          env: { ...env, HELPDESK_CLIENT_SECRET: DEFAULT_CLIENT.clientSecret },
          onStderr: (text) => {
            const url = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(text)?.[1];
            if (url && !browsed) browsed = completeAuthorizationAutoApproved(url);
          },
        },
      );
      await browsed;
      expect(login.code, shown("pulumi-helpdesk login", login)).toBe(0);

      const up = await run("pulumi", ["up", "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"], { cwd: dir, env });
      expect(up.code, shown("pulumi up", up)).toBe(0);
      const created = await emulatorWebhooks(emulator.url);
      expect(created.map(({ event, url }) => ({ event, url })).sort((a, b) => a.event.localeCompare(b.event))).toEqual(
        DECLARED_WEBHOOKS.map(({ event, url }) => ({ event, url })).sort((a, b) => a.event.localeCompare(b.event)),
      );
      const outputs = await run("pulumi", ["stack", "output", "ids", "--json", "--stack", "dev"], { cwd: dir, env });
      expect((JSON.parse(outputs.stdout) as string[]).sort()).toEqual(created.map((hook) => hook.id).sort());

      const destroy = await run("pulumi", ["destroy", "--yes", "--skip-preview", "--stack", "dev", "--non-interactive"], { cwd: dir, env });
      expect(destroy.code, shown("pulumi destroy", destroy)).toBe(0);
      expect(await emulatorWebhooks(emulator.url)).toEqual([]);
      row.result = "works";
    } finally {
      row.seconds = (performance.now() - started) / 1000;
      await emulator.close();
    }
  });
});

describe("on a Node.js older than the package needs", () => {
  const oldNode = process.env.HELPDESK_TEST_OLD_NODE;

  it("the CLI, the SDK, the provider and the emulator each stop with one line naming the versions", async () => {
    if (!oldNode && process.env.CI === "true") throw new Error("HELPDESK_TEST_OLD_NODE is not set: run the tests with `npm test` (scripts/setup.sh --test installs Node 20)");
    expect(oldNode, "HELPDESK_TEST_OLD_NODE (a Node.js < 22.12)").toBeTruthy();
    const shape = shapes.find((s) => s.name === "js-commonjs")!;
    const dir = projectDir(shape);
    expect((await installs.get(shape.name)!).code).toBe(0);
    const oldBin = join(oldNode!, "..");
    const env = { ...projectEnv(dir, shape), PATH: `${oldBin}:${process.env.PATH ?? ""}` };
    const version = (await run(oldNode!, ["-p", "process.versions.node"], { cwd: dir, env })).stdout.trim();
    expect(version.startsWith("20."), `old node is ${version}`).toBe(true);
    const needs = `pulumi-helpdesk needs Node.js >= ${MINIMUM_NODE_VERSION}, but this is Node.js ${version}`;

    const help = await run("npx", ["--no-install", "pulumi-helpdesk", "--help"], { cwd: dir, env });
    expect(help.code).toBe(1);
    // One line of ours; npm may add its own warnings about the user's npm config before it.
    const ours = help.stderr.trim().split("\n").filter((line) => !line.startsWith("npm warn"));
    expect(ours).toEqual([expect.stringContaining(needs)]);
    expect(help.stderr).toContain("install Node.js 22.12 or newer");

    for (const [entry, load] of [
      ["pulumi-helpdesk", `require("pulumi-helpdesk")`],
      ["pulumi-helpdesk/provider", `import("pulumi-helpdesk/provider")`],
      ["pulumi-helpdesk/emulator", `import("pulumi-helpdesk/emulator")`],
    ] as const) {
      const script = `Promise.resolve().then(() => ${load}).then(() => console.log("loaded"), (e) => { console.log(e.message); process.exit(3); })`;
      const loaded = await run(oldNode!, ["-e", script], { cwd: dir, env });
      expect(loaded.code, `${entry}: ${loaded.stdout}${loaded.stderr}`).toBe(3);
      expect(loaded.stdout.trim(), entry).toContain(needs);
    }
  });
});
