/**
 * `npm run publish` against local copies of every registry (tests/support/registries.ts), all on 127.0.0.1:
 * Verdaccio (npm), pypiserver (PyPI), a stand-in of Maven Central's Portal (tests/support/central-portal.ts: the
 * Publisher API, and the Maven repository over HTTP it publishes into; the Java SDK signed with a key made for the
 * test), a Go module proxy (the GOPROXY-protocol folder the publish writes, served over HTTP) and the plugin mirror
 * (the GitHub release's download folder it writes).
 *
 * The release is this run's (tests/support/release.ts) with the npm package packed as a clean clone packs it
 * (tests/support/package.ts), the two put together in a folder of links with its own SHA256SUMS. Then:
 *
 * 1. `npm run publish -- --dry-run` prints what would go where, and no registry's log shows an upload;
 * 2. `npm run publish` publishes everything; a second run finds everything there and sends nothing;
 * 3. in fresh projects, each language installs **by name** from those registries, as the README says, and runs
 *    `pulumi up` and `pulumi destroy` against the emulators with the plugin downloaded by Pulumi from the mirror
 *    (the suite of tests/no-node/no-node-desks.ts: Python, Go, Java and YAML with no Node.js on PATH); and the
 *    receiver kits, each into a fresh project with only its registry (`npm install @pulumi-helpdesk/receiver`,
 *    `pip install pulumi-helpdesk-receiver` into a fresh virtualenv with no other index, `go get` of
 *    `.../receiver/go` through the local proxy alone), tell a delivery's url from a forged one;
 * 4. last, a version a registry already holds with other bytes is refused by that registry, and the run stops with
 *    one line naming the target, where it sends and the registry's reason (Maven Central's Portal says only whether
 *    a version is published, which is skipped; its refusals: tests/publish/maven-central.test.ts);
 * 5. a prerelease of the next version, the release's npm tarballs re-versioned, published from a checkout of that
 *    version goes to the dist-tag `next`, and `latest` stays the release.
 *
 * Verdaccio requires authentication: the publish has its user's token in NODE_AUTH_TOKEN, and no run prints it.
 */

import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "../../emulator/index.js";
import { registeredUrl } from "../../kernel/delivery-token.js";
import {
  goModulePath,
  MAVEN_ARTIFACT_ID,
  mavenCoordinates,
  mavenGroupId,
  nodejsSdkPackage,
  PYTHON_PACKAGE,
  RECEIVER_PYTHON_DISTRIBUTION,
  RECEIVER_PYTHON_PACKAGE,
  receiverGoModulePath,
  receiverNpmPackage,
} from "../../kernel/names.js";
import { required } from "../../kernel/required.ts";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { CENTRAL_SETTINGS } from "../../scripts/publish/maven.ts";
import {
  npmTarballName,
  releaseGoModules,
  releaseNpmPackages,
  releasePythonFiles,
} from "../../scripts/publish/packages.ts";
import { nodejsSdkTarball } from "../../scripts/release/nodejs-sdk.ts";
import { describeDownloadedPlugin, goExampleSteps, systemWithoutNode, VERSION } from "../no-node/no-node-desks.js";
import { type CentralPortal, makeSigningKey, type SigningKey, startCentralPortal } from "../support/central-portal.js";
import { freePort, loginArgs, loginThrough } from "../support/cli.js";
import { heldWebhooks } from "../support/emulator.js";
import { copyExample, EXAMPLES_DIR } from "../support/examples.js";
import { machineMavenRepository, mavenEnv } from "../support/maven.js";
import { packLikeACleanClone } from "../support/package.js";
import { pulumi, pulumiEnv, removeStack } from "../support/pulumi-cli.js";
import { mustRun, toolVenv, wheelhouse } from "../support/python.js";
import {
  type LocalServer,
  publishCheckout,
  runPublish,
  serveFolder,
  startPypiserver,
  startVerdaccio,
  type Verdaccio,
} from "../support/registries.js";
import { sharedRelease } from "../support/release.js";

/** The registries the release is published to, one local server each. */
type RegistryName = "npm" | "pypi" | "maven" | "go";

/** The npm packages of the release. */
const NPM_PACKAGES = releaseNpmPackages().map((pkg) => pkg.name);
/** The Java SDK's folder in a Maven repository, from its coordinates (kernel/names.ts, sdk/java/pom.xml). */
const JAVA = { path: `${mavenGroupId().replaceAll(".", "/")}/${MAVEN_ARTIFACT_ID}`, artifact: MAVEN_ARTIFACT_ID };
/** The Go SDK's module folder in a GOPROXY-protocol folder (the module path has no capitals to escape). */
const GO_MODULE_DIR = `${goModulePath()}/@v`;
/** The Go receiver kit's module folder in a GOPROXY-protocol folder. */
const RECEIVER_GO_MODULE_DIR = `${receiverGoModulePath()}/@v`;

let work: string;
let release: string;
let goFolder: string;
let githubFolder: string;
let signingKey: SigningKey;
let portal: CentralPortal;
/** The registries' servers, each set by beforeAll once started (the ones started are closed by afterAll). */
const servers: Partial<Record<RegistryName, LocalServer>> = {};
let verdaccio: Verdaccio;
/** Every run's output, to show no credential is in any. */
const outputs: Ran[] = [];
let publishEnv: NodeJS.ProcessEnv;
let runs: Record<"dryRun" | "first" | "second", Ran>;
/** What the folder targets held right after the dry run. */
let foldersAfterDryRun: { go: string[]; github: boolean };
/** Each registry's log right after the dry run, and after the first publish. */
let logs: Record<"afterDryRun" | "afterFirst", Record<RegistryName, string>>;

/** `npm run publish` of `dir` (default: the test's release) to the test's registries. */
async function publishTo(args: string[], dir = release): Promise<Ran> {
  const ran = await runCommand(
    "npm",
    [
      "run",
      "--silent",
      "publish",
      "--",
      "--release",
      dir,
      "--go-proxy",
      goFolder,
      "--github-release-folder",
      githubFolder,
      ...args,
    ],
    { cwd: repoRoot, env: publishEnv },
  );
  outputs.push(ran);
  return ran;
}

/** The registry server `name`, started by beforeAll. */
function server(name: RegistryName): LocalServer {
  return required(servers[name], `the ${name} server`);
}

/** What each registry logged so far. */
function registryLogs(): Record<RegistryName, string> {
  return { npm: server("npm").log(), pypi: server("pypi").log(), maven: server("maven").log(), go: server("go").log() };
}

/**
 * A release folder of links to the files of others, with its own SHA256SUMS.
 *
 * @param dir the folder to make
 * @param files the files, by their paths
 */
function releaseFolder(dir: string, files: string[]): string {
  mkdirSync(dir, { recursive: true });
  const sums = files.map((file) => {
    const name = basename(file);
    symlinkSync(file, join(dir, name));
    return `${execFileSync("sha256sum", [file], { encoding: "utf8" }).slice(0, 64)}  ${name}\n`;
  });
  writeFileSync(join(dir, "SHA256SUMS"), sums.join(""));
  return dir;
}

/** The integrity npm records of a tarball (sha512, base64). */
function integrityOf(file: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

/** The integrity a project's package-lock.json records for an installed package. */
function lockedIntegrity(project: string, name: string): string | undefined {
  const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
    packages: Record<string, { integrity?: string }>;
  };
  return lock.packages[`node_modules/${name}`]?.integrity;
}

/** The release's files but SHA256SUMS, with some replaced by other files of the same name. */
function releaseFiles(replaced: Record<string, string> = {}): string[] {
  return readdirSync(release)
    .filter((name) => name !== "SHA256SUMS")
    .map((name) => replaced[name] ?? join(release, name));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-publish-"));
  const shared = await sharedRelease();
  const packed = packLikeACleanClone(mkdtempSync(join(work, "pack-")));
  release = join(work, "release");
  releaseFolder(release, [
    ...readdirSync(shared)
      .filter((name) => name !== "SHA256SUMS")
      .map((name) => join(shared, name)),
    packed.path,
  ]);
  goFolder = join(work, "go-proxy");
  githubFolder = join(work, "github-release");
  mkdirSync(goFolder);
  const upstream = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
  verdaccio = await startVerdaccio(join(work, "verdaccio"), upstream, NPM_PACKAGES);
  servers.npm = verdaccio;
  servers.pypi = await startPypiserver(join(work, "pypi"));
  signingKey = await makeSigningKey(join(work, "gnupg"), "pulumi-helpdesk release <release@example.invalid>");
  portal = await startCentralPortal(join(work, "central-portal"), {
    username: "helpdesk-publisher",
    password: "portal-user-token-password",
    namespace: mavenGroupId(),
    publicKeys: signingKey.publicKey,
  });
  servers.maven = portal;
  servers.go = await serveFolder(goFolder);
  publishEnv = {
    ...mavenEnv({ ...process.env }, join(work, "maven-local")),
    npm_config_registry: servers.npm.url,
    NODE_AUTH_TOKEN: verdaccio.token,
    TWINE_REPOSITORY_URL: servers.pypi.url,
    TWINE_USERNAME: "anyone",
    TWINE_PASSWORD: "pypiserver-accepts-any-password",
    GNUPGHOME: signingKey.home,
    [CENTRAL_SETTINGS.url]: portal.url,
    [CENTRAL_SETTINGS.username]: "helpdesk-publisher",
    [CENTRAL_SETTINGS.password]: "portal-user-token-password",
  };
  const dryRun = await publishTo(["--dry-run"]);
  const afterDryRun = registryLogs();
  foldersAfterDryRun = { go: readdirSync(goFolder), github: existsSync(githubFolder) };
  const first = await publishTo([]);
  const afterFirst = registryLogs();
  runs = { dryRun, first, second: await publishTo([]) };
  logs = { afterDryRun, afterFirst };
}, 900_000);

afterAll(async () => {
  for (const server of Object.values(servers)) await server?.close();
  await signingKey?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Every item the release publishes, as `<target>: <what> -> <where>`. */
function items(): string[] {
  const archives = readdirSync(release).filter((name) => name.startsWith("pulumi-resource-helpdesk-"));
  return [
    ...[...archives, "SHA256SUMS"].map((name) => `github: ${name} -> ${join(githubFolder, `v${VERSION}`)}`),
    ...NPM_PACKAGES.map((name) => `npm: ${name}@${VERSION} -> ${server("npm").url}`),
    ...releasePythonFiles(VERSION).map((name) => `pypi: ${name} -> ${server("pypi").url}`),
    `maven: ${mavenCoordinates()}:${VERSION} -> ${server("maven").url}`,
    ...releaseGoModules().map((module) => `go: ${module.name}@v${VERSION} -> ${goFolder}`),
  ];
}

describe("npm run publish to local registries", () => {
  it("--dry-run says what would be sent where, and no registry's log shows an upload", () => {
    expect(runs.dryRun.code, shown("npm run publish -- --dry-run", runs.dryRun)).toBe(0);
    expect(runs.dryRun.stdout.trim().split("\n")).toEqual(items().map((item) => `${item}: would publish`));
    const log = logs.afterDryRun;
    expect(log.npm).not.toMatch(/'PUT \/(?!-\/user\/)/); // the only PUT: the test's user, made at the start
    expect(log.pypi).not.toMatch(/"POST /);
    expect(log.maven).not.toMatch(/^POST /m);
    expect(foldersAfterDryRun).toEqual({ go: [], github: false });
  });

  it("publishes every package: the three npm packages, both wheels and sdists, the Java SDK with its sources and javadoc, both Go modules, the plugin archives", () => {
    expect(runs.first.code, shown("npm run publish", runs.first)).toBe(0);
    expect(runs.first.stdout.trim().split("\n")).toEqual(items().map((item) => `${item}: published`));
    const log = logs.afterFirst;
    for (const name of NPM_PACKAGES) expect(log.npm).toContain(`'PUT /${name.replace("/", "%2f")}'`);
    expect(log.pypi.match(/"POST \/ HTTP\/1\.1" 200/g)).toHaveLength(releasePythonFiles(VERSION).length);
    const deployed = readdirSync(join(portal.repositoryDir, JAVA.path, VERSION));
    for (const suffix of [".jar", "-sources.jar", "-javadoc.jar", ".pom"])
      expect(deployed).toContain(`${JAVA.artifact}-${VERSION}${suffix}`);
    for (const dir of [GO_MODULE_DIR, RECEIVER_GO_MODULE_DIR]) {
      expect(readFileSync(join(goFolder, dir, "list"), "utf8")).toBe(`v${VERSION}\n`);
      expect(readdirSync(join(goFolder, dir)).sort()).toEqual([
        "list",
        `v${VERSION}.info`,
        `v${VERSION}.mod`,
        `v${VERSION}.zip`,
      ]);
    }
    expect(readdirSync(join(githubFolder, `v${VERSION}`)).sort()).toEqual(
      [...readdirSync(release).filter((name) => name.startsWith("pulumi-resource-helpdesk-")), "SHA256SUMS"].sort(),
    );
  });

  it("a second run finds everything there and sends nothing", () => {
    expect(runs.second.code, shown("npm run publish (again)", runs.second)).toBe(0);
    expect(runs.second.stdout.trim().split("\n")).toEqual(items().map((item) => `${item}: present, skipped`));
    const before = logs.afterFirst;
    const after = registryLogs();
    expect(after.npm.slice(before.npm.length)).not.toMatch(/'PUT /);
    expect(after.pypi.slice(before.pypi.length)).not.toMatch(/"POST /);
    expect(after.maven.slice(before.maven.length)).not.toMatch(/^POST /m);
  });
});

describe("by name from the local npm registry: examples/basic's dynamic Webhook (npm install pulumi-helpdesk)", () => {
  const stack = "dynamic";
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let emulator: RunningEmulator;

  beforeAll(async () => {
    dir = join(work, "basic");
    mkdirSync(dir);
    for (const file of ["Pulumi.yaml", "index.ts", "package.json"])
      cpSync(join(EXAMPLES_DIR, "basic", file), join(dir, file));
    env = {
      ...pulumiEnv(`file://${join(work, "basic-state")}`, join(work, "basic-tokens")),
      PULUMI_HOME: join(work, "basic-pulumi-home"),
      PULUMI_NODEJS_TYPESCRIPT: "false",
      npm_config_registry: server("npm").url,
    };
    mkdirSync(join(work, "basic-state"));
    const installed = await runCommand(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
      { cwd: dir, env },
    );
    if (installed.code !== 0) throw new Error(shown("npm install (examples/basic)", installed));
    const client = {
      clientId: "basic-client",
      clientSecret: "basic-client-secret-value",
      redirectUri: `http://127.0.0.1:${await freePort()}/callback`,
      name: "basic",
    };
    emulator = await startEmulator({ port: 0, autoApprove: true, clients: [client] });
    const signIn = { stack, baseUrl: emulator.url, client };
    const ran = await loginThrough([join(dir, "node_modules", ".bin", "pulumi-helpdesk")], signIn, { cwd: dir, env });
    if (ran.code !== 0) throw new Error(shown(`npx pulumi-helpdesk ${loginArgs(signIn).join(" ")}`, ran));
  }, 300_000);

  afterAll(async () => {
    if (env) await removeStack(stack, dir, env);
    await emulator?.close();
  });

  it("installs the published package, whose up creates the program's four webhooks and destroy removes them", async () => {
    const installed = JSON.parse(
      readFileSync(join(dir, "node_modules", "pulumi-helpdesk", "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(VERSION);
    expect(server("npm").log()).toContain("'GET /pulumi-helpdesk'");
    expect(lockedIntegrity(dir, "pulumi-helpdesk")).toBe(integrityOf(join(release, `pulumi-helpdesk-${VERSION}.tgz`)));
    const up = await pulumi(["up", "--yes", "--skip-preview", "--stack", stack], dir, env);
    expect(up.code, shown("pulumi up", up)).toBe(0);
    expect((await heldWebhooks(emulator)).map((hook) => hook.event).sort()).toEqual([
      "customer_added",
      "customer_replied",
      "ticket_priority_changed",
      "ticket_started",
    ]);
    const destroyed = await pulumi(["destroy", "--yes", "--skip-preview", "--stack", stack], dir, env);
    expect(destroyed.code, shown("pulumi destroy", destroyed)).toBe(0);
    expect(await heldWebhooks(emulator)).toEqual([]);
  });
});

/** The plugin mirror: the GitHub release's download folder the publish wrote. */
const pluginMirror = async () => join(githubFolder, `v${VERSION}`);

describeDownloadedPlugin(
  "by name from the local npm registry: examples/typescript with @pulumi-helpdesk/helpdesk, the plugin downloaded by Pulumi",
  {
    hosts: ["pulumi-language-nodejs"],
    node: true,
    project: "helpdesk-typescript",
    pluginMirror,
    prepare: async (_work, programDir) => {
      for (const file of ["Pulumi.yaml", "index.ts", "package.json"])
        cpSync(join(EXAMPLES_DIR, "typescript", file), join(programDir, file));
      const ran = await runCommand(
        "npm",
        ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
        {
          cwd: programDir,
          env: { ...process.env, npm_config_registry: server("npm").url },
        },
      );
      if (ran.code !== 0) throw new Error(shown("npm install (examples/typescript)", ran));
      const installed = JSON.parse(
        readFileSync(join(programDir, "node_modules", nodejsSdkPackage(), "package.json"), "utf8"),
      ) as { version: string };
      expect(installed.version).toBe(VERSION);
      // Resolved by the local registry (a random port: no earlier run's packument in npm's cache), the release's bytes.
      expect(server("npm").log()).toContain(`'GET /${nodejsSdkPackage().replace("/", "%2f")}'`);
      expect(lockedIntegrity(programDir, nodejsSdkPackage())).toBe(
        integrityOf(join(release, nodejsSdkTarball(VERSION))),
      );
      return { env: { PULUMI_NODEJS_TYPESCRIPT: "false" } };
    },
  },
);

describeDownloadedPlugin(
  "by name from the local PyPI with no Node.js: pip install pulumi-helpdesk, the plugin downloaded by Pulumi",
  {
    hosts: ["pulumi-language-python", "pulumi-language-python-exec"],
    project: "helpdesk-python-no-node",
    pluginMirror,
    prepare: async (work, programDir) => {
      const python = join(toolVenv, "bin", "python");
      const venv = join(work, "venv");
      await mustRun(python, ["-m", "venv", venv], work);
      // Pulumi's Python SDK and its dependencies are not on the local index: they come from the wheelhouse.
      const ran = await runCommand(
        join(venv, "bin", "python"),
        ["-m", "pip", "install", "--quiet", "pulumi-helpdesk"],
        {
          cwd: work,
          env: {
            ...process.env,
            PIP_INDEX_URL: `${server("pypi").url}simple/`,
            PIP_FIND_LINKS: await wheelhouse(python),
            PIP_DISABLE_PIP_VERSION_CHECK: "1",
            PIP_NO_INPUT: "1",
          },
        },
      );
      if (ran.code !== 0) throw new Error(shown("pip install pulumi-helpdesk", ran));
      expect(server("pypi").log()).toMatch(
        new RegExp(`"GET /packages/${PYTHON_PACKAGE}-${VERSION}-py3-none-any\\.whl HTTP`),
      );
      cpSync(join(repoRoot, "tests", "no-node", "python"), programDir, { recursive: true });
      return {
        pathDirs: [join(venv, "bin")],
        env: {
          HELPDESK_EXAMPLE_PROGRAM: join(repoRoot, "examples", "python", "__main__.py"),
          PYTHONDONTWRITEBYTECODE: "1",
        },
      };
    },
  },
);

describeDownloadedPlugin(
  "by name from the local Go module proxy with no Node.js: go get of the Go SDK, the plugin downloaded by Pulumi",
  {
    hosts: [],
    project: "helpdesk-go",
    pluginMirror,
    ...goExampleSteps(async (work) => {
      const source = copyExample("go", join(work, "source"));
      // A module cache of its own (so the machine's never holds the test's module), with every other module read from
      // the machine's cache as a second proxy, and what that lacks (a few go.mod files) from the machine's own proxy
      // setting; the public checksum database has never seen the module.
      const gomodcache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
      const upstream = execFileSync("go", ["env", "GOPROXY"], { encoding: "utf8" }).trim();
      const env = {
        ...process.env,
        GOMODCACHE: join(work, "gomodcache"),
        GOPROXY: `${server("go").url},file://${join(gomodcache, "cache", "download")},${upstream}`,
        GONOSUMDB: goModulePath(),
        GOFLAGS: "-mod=mod -modcacherw -p=1 -buildvcs=false",
        GOWORK: "off",
        GOTOOLCHAIN: "local",
      };
      for (const args of [
        ["get", `${goModulePath()}@v${VERSION}`],
        ["build", "-o", join(work, "helpdesk-go"), "."],
      ]) {
        const ran = await runCommand("go", args, { cwd: source, env });
        if (ran.code !== 0) throw new Error(shown(`go ${args.join(" ")}`, ran));
      }
      expect(server("go").log()).toContain(`GET /${GO_MODULE_DIR}/v${VERSION}.zip`);
      return join(work, "helpdesk-go");
    }),
  },
);

describeDownloadedPlugin(
  "by name from the local Maven repository with no Node.js: examples/java's dependency, the plugin downloaded by Pulumi",
  {
    hosts: ["pulumi-language-java"],
    project: "helpdesk-java",
    pluginMirror,
    prepare: async (work, programDir) => {
      copyExample("java", programDir);
      // The repository the Portal published into first, then the machine's (Pulumi's Java SDK and the Maven
      // plugins). Maven's settings go into a home of the test's own folder (MAVEN_OPTS names it as user.home): in the
      // test file's home they would outlive this folder.
      const env = mavenEnv({ ...process.env, HOME: join(work, "home") }, join(work, "maven-repository"), [
        portal.repository.url,
      ]);
      if (!existsSync(machineMavenRepository))
        throw new Error(`no Maven repository at ${machineMavenRepository}: run scripts/setup.sh --test`);
      return { pathDirs: [systemWithoutNode(join(work, "system"))], env: { MAVEN_OPTS: env.MAVEN_OPTS } };
    },
    operate: async (operation, stack, programDir, env) => {
      const ran = await pulumi([operation, "--yes", "--skip-preview", "--stack", stack], programDir, env);
      if (ran.code !== 0) throw new Error(shown(`pulumi ${operation}`, ran));
      // The SDK came from the published repository (the machine's holds a copy that `mvn install` put there).
      if (operation === "up")
        expect(portal.repository.log()).toContain(`GET /${JAVA.path}/${VERSION}/${JAVA.artifact}-${VERSION}.jar`);
    },
  },
);

describeDownloadedPlugin("YAML with no Node.js: the plugin downloaded by Pulumi from the published GitHub release", {
  hosts: ["pulumi-language-yaml"],
  project: "helpdesk-yaml",
  pluginMirror,
  prepare: async (_work, programDir) => {
    copyExample("yaml", programDir);
    return {};
  },
});

describe("the receiver kits, each installed by name into a fresh project with only its registry", () => {
  /** Two valid delivery tokens: the service accepts the first; a forger holds the second. */
  const accepted = `hdt_${randomBytes(32).toString("base64url")}`;
  const forged = `hdt_${randomBytes(32).toString("base64url")}`;
  /** A delivery's url as the help desk registers it, and one carrying the forger's token. */
  const delivered = registeredUrl("http://127.0.0.1:8000/hooks/helpdesk", "ticket_opened", accepted);
  const forgery = registeredUrl("http://127.0.0.1:8000/hooks/helpdesk", "ticket_opened", forged);
  /** The two urls' queries, as a server hands them over (Go's `r.URL.RawQuery`, WSGI's `QUERY_STRING`). */
  const queries = [delivered, forgery].map((url) => new URL(url).search.slice(1));
  /** What each kit's verification of the two urls must print: verified with the first token, and not. */
  const VERIFIED = ["true 0 ticket_opened", "false -1 -"];

  it(`npm install ${receiverNpmPackage()} from the local npm registry, and its verifyDelivery tells a delivery from a forgery`, async () => {
    const dir = mkdtempSync(join(work, "kit-npm-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "service", private: true, type: "module" }));
    const env = { ...process.env, npm_config_registry: server("npm").url };
    const installed = await runCommand(
      "npm",
      ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", receiverNpmPackage()],
      { cwd: dir, env },
    );
    expect(installed.code, shown(`npm install ${receiverNpmPackage()}`, installed)).toBe(0);
    expect(server("npm").log()).toContain(`'GET /${receiverNpmPackage().replace("/", "%2f")}'`);
    const tarball = npmTarballName(receiverNpmPackage(), VERSION);
    expect(lockedIntegrity(dir, receiverNpmPackage())).toBe(integrityOf(join(release, tarball)));
    writeFileSync(
      join(dir, "service.js"),
      `import { verifyDelivery } from "${receiverNpmPackage()}";
for (const requestUrl of process.argv.slice(3)) {
  const found = verifyDelivery({ requestUrl, tokens: [process.argv[2]] });
  console.log(found.verified, found.tokenIndex, found.event ?? "-");
}
`,
    );
    const ran = await runCommand(process.execPath, ["service.js", accepted, delivered, forgery], { cwd: dir, env });
    expect(ran.code, shown("node service.js", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(VERIFIED);
  });

  it(`pip install ${RECEIVER_PYTHON_DISTRIBUTION} from the local PyPI into a fresh virtualenv, no other index, and its verify_delivery tells a delivery from a forgery`, async () => {
    const dir = mkdtempSync(join(work, "kit-pypi-"));
    const venv = join(dir, "venv");
    await mustRun(join(toolVenv, "bin", "python"), ["-m", "venv", venv], dir);
    const env = {
      ...process.env,
      PIP_INDEX_URL: `${server("pypi").url}simple/`,
      PIP_FIND_LINKS: undefined, // no wheelhouse: the kit needs no other distribution
      PIP_NO_CACHE_DIR: "1",
      PIP_DISABLE_PIP_VERSION_CHECK: "1",
      PIP_NO_INPUT: "1",
      PYTHONDONTWRITEBYTECODE: "1",
    };
    const installed = await runCommand(
      join(venv, "bin", "python"),
      ["-m", "pip", "install", "--quiet", RECEIVER_PYTHON_DISTRIBUTION],
      { cwd: dir, env },
    );
    expect(installed.code, shown(`pip install ${RECEIVER_PYTHON_DISTRIBUTION}`, installed)).toBe(0);
    expect(server("pypi").log()).toMatch(
      new RegExp(`"GET /packages/${RECEIVER_PYTHON_PACKAGE}-${VERSION}-py3-none-any\\.whl HTTP`),
    );
    const ran = await runCommand(
      join(venv, "bin", "python"),
      [
        "-c",
        `import sys
from ${RECEIVER_PYTHON_PACKAGE} import verify_delivery
for query in sys.argv[2:]:
    found = verify_delivery(query, [sys.argv[1]])
    print(str(found.verified).lower(), found.token_index, found.event or "-")`,
        accepted,
        ...queries,
      ],
      { cwd: dir, env },
    );
    expect(ran.code, shown("python -c 'from ... import verify_delivery'", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(VERIFIED);
    // Installed from the index, not found in the repository: the venv holds the module.
    const where = await runCommand(
      join(venv, "bin", "python"),
      ["-c", `import ${RECEIVER_PYTHON_PACKAGE} as kit; print(kit.__file__)`],
      { cwd: dir, env },
    );
    expect(where.stdout.trim().startsWith(`${venv}/`), shown("the module's file", where)).toBe(true);
  });

  it(`go get ${receiverGoModulePath()}@v${VERSION} through the local Go module proxy alone, and a program built with it tells a delivery from a forgery`, async () => {
    const dir = mkdtempSync(join(work, "kit-go-"));
    // A module cache of the test's own; the local proxy is the only one (the kit needs no other module), and the
    // public checksum database has never seen the module.
    const env = {
      ...process.env,
      GOMODCACHE: join(dir, "gomodcache"),
      GOPROXY: server("go").url,
      GONOSUMDB: receiverGoModulePath(),
      GOFLAGS: "-mod=mod -modcacherw -p=1 -buildvcs=false",
      GOWORK: "off",
      GOTOOLCHAIN: "local",
    };
    const source = join(dir, "service");
    mkdirSync(source);
    writeFileSync(
      join(source, "main.go"),
      `package main

import (
	"fmt"
	"os"

	receiver "${receiverGoModulePath()}"
)

func main() {
	for _, query := range os.Args[2:] {
		found, err := receiver.VerifyDelivery(query, []string{os.Args[1]})
		if err != nil {
			panic(err)
		}
		event := string(found.Event)
		if event == "" {
			event = "-"
		}
		fmt.Println(found.Verified, found.TokenIndex, event)
	}
}
`,
    );
    for (const args of [
      ["mod", "init", "example.invalid/service"],
      ["get", `${receiverGoModulePath()}@v${VERSION}`],
      ["build", "-o", join(dir, "service-bin"), "."],
    ]) {
      const ran = await runCommand("go", args, { cwd: source, env });
      expect(ran.code, shown(`go ${args.join(" ")}`, ran)).toBe(0);
    }
    expect(server("go").log()).toContain(`GET /${RECEIVER_GO_MODULE_DIR}/v${VERSION}.zip`);
    const ran = await runCommand(join(dir, "service-bin"), [accepted, ...queries], { cwd: dir, env });
    expect(ran.code, shown("the Go service", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(VERIFIED);
  });
});

describe("a version a registry already holds with other bytes", () => {
  /** A copy of the release with one file replaced by `file`. */
  function releaseWith(name: string, file: string): string {
    return releaseFolder(mkdtempSync(join(work, "changed-release-")), releaseFiles({ [name]: file }));
  }

  it("npm: Verdaccio refuses the changed tarball, and the run stops naming the target and the registry", async () => {
    const tarball = nodejsSdkTarball(VERSION);
    const unpacked = mkdtempSync(join(work, "npm-changed-"));
    execFileSync("tar", ["-xzf", join(release, tarball), "-C", unpacked]);
    writeFileSync(join(unpacked, "package", "CHANGED.md"), "other bytes of the same version\n");
    mkdirSync(join(unpacked, "out"));
    execFileSync("tar", ["-czf", join(unpacked, "out", tarball), "-C", unpacked, "package"]);
    const ran = await publishTo(["--only", "npm"], releaseWith(tarball, join(unpacked, "out", tarball)));
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `error: npm: ${server("npm").url} refused ${nodejsSdkPackage()}@${VERSION}: You cannot publish over the previously published versions: ${VERSION}. (a registry never replaces a published version, and needs a token: NODE_AUTH_TOKEN or npm login)\n`,
    );
  });

  it("pypi: pypiserver refuses the changed wheel, and the run stops naming the target and the index", async () => {
    const wheel = `${PYTHON_PACKAGE}-${VERSION}-py3-none-any.whl`;
    const changed = join(mkdtempSync(join(work, "pypi-changed-")), wheel);
    copyFileSync(join(release, wheel), changed);
    await mustRun(
      join(toolVenv, "bin", "python"),
      ["-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'a') as z: z.comment = b'other bytes'", changed],
      work,
    );
    const ran = await publishTo(["--only", "pypi"], releaseWith(wheel, changed));
    expect(ran.code).toBe(1);
    // pypiserver's answer, out of the HTML page twine prints: "Package '<file>' already exists!"
    expect(ran.stderr).toBe(
      `error: pypi: ${server("pypi").url} refused ${wheel}: 400 Bad Request: Package '${wheel}' already exists! You may start server with \`--overwrite\` option. (an index never replaces a file, and needs TWINE_USERNAME and TWINE_PASSWORD or trusted publishing)\n`,
    );
  });

  it("go and github: a folder holding the version with other files refuses it, and the run stops naming the folder", async () => {
    const zip = join(goFolder, GO_MODULE_DIR, `v${VERSION}.zip`);
    const added = `${goModulePath()}@v${VERSION}/CHANGED.md`;
    await mustRun(
      join(toolVenv, "bin", "python"),
      [
        "-c",
        "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'a') as z: z.writestr(sys.argv[2], 'other files')",
        zip,
        added,
      ],
      work,
    );
    const go = await publishTo(["--only", "go"]);
    expect(go.code).toBe(1);
    expect(go.stderr).toContain(`error: go: ${goFolder} refused ${goModulePath()}@v${VERSION}`);
    const archive = required(
      readdirSync(release).find((name) => name.endsWith("-linux-amd64.tar.gz")),
      "the linux-amd64 archive",
    );
    writeFileSync(join(githubFolder, `v${VERSION}`, archive), "other bytes");
    const github = await publishTo(["--only", "github"]);
    expect(github.code).toBe(1);
    expect(github.stderr).toContain(
      `error: github: ${join(githubFolder, `v${VERSION}`)} already holds ${archive} with other bytes`,
    );
  });
});

describe("a prerelease of the next version", () => {
  it("goes to npm's dist-tag next from a checkout of that version; latest stays the release", async () => {
    const [major, minor = Number.NaN] = VERSION.split(".").map(Number);
    const rc = `${major}.${minor + 1}.0-rc.1`;
    const folder = mkdtempSync(join(work, "rc-release-"));
    const tarballs = readdirSync(release).filter((name) => name.endsWith(".tgz"));
    for (const name of tarballs) {
      // The release's tarball, its package.json's version changed: what `npm run release` of that version packs.
      const unpacked = mkdtempSync(join(work, "rc-unpacked-"));
      execFileSync("tar", ["-xzf", join(release, name), "-C", unpacked]);
      const manifest = join(unpacked, "package", "package.json");
      writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), version: rc }, null, 2));
      execFileSync("tar", ["-czf", join(folder, name.replace(VERSION, rc)), "-C", unpacked, "package"]);
    }
    const rcRelease = releaseFolder(
      mkdtempSync(join(work, "rc-release-sums-")),
      readdirSync(folder).map((name) => join(folder, name)),
    );
    const checkout = publishCheckout(join(work, "rc-checkout"), rc);
    const ran = await runPublish(checkout, ["--only", "npm", "--release", rcRelease], publishEnv);
    outputs.push(ran);
    expect(ran.code, shown("npm run publish of the prerelease", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(
      NPM_PACKAGES.map((name) => `npm: ${name}@${rc} -> ${server("npm").url}: published`),
    );
    for (const name of NPM_PACKAGES) {
      const tags = execFileSync("npm", ["view", name, "dist-tags", "--json"], {
        cwd: work,
        encoding: "utf8",
        env: { ...process.env, npm_config_registry: server("npm").url },
      });
      expect(JSON.parse(tags)).toEqual({ latest: VERSION, next: rc });
    }
  });
});

describe("credentials", () => {
  it("no run printed the npm token or the PyPI password", () => {
    expect(outputs.length).toBeGreaterThan(5);
    for (const ran of outputs)
      for (const secret of [verdaccio.token, required(publishEnv.TWINE_PASSWORD, "TWINE_PASSWORD")])
        expect(`${ran.stdout}${ran.stderr}`).not.toContain(secret);
  });
});
