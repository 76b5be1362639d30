/**
 * release.yml's `verify` job (run by scripts/ci/verify-release.sh after npm ci and the build): installs each package
 * of the release, package.json's version, **by name** from the registries, each in a fresh folder of its own, and
 * runs it, as a user would right after the release:
 *
 * - npm: `npm install pulumi-helpdesk@<version>`, whose CLI prints the version; `npm install
 *   @pulumi-helpdesk/helpdesk@<version>`, which Node.js loads; `npm install @pulumi-helpdesk/receiver@<version>`, the
 *   receiver kit, whose `verifyDelivery` Node.js imports;
 * - PyPI: `pip install pulumi-helpdesk==<version>` and `pip install pulumi-helpdesk-receiver==<version>`, each into a
 *   new virtualenv, which Python imports;
 * - Go: `go mod download` of the Go SDK's module and of the Go receiver kit's, at `v<version>`;
 * - Maven: `mvn dependency:get` of the Java SDK's coordinates (into a Maven repository of its own);
 * - the GitHub release: the linux-amd64 plugin archive and SHA256SUMS from the plugin download URL (Pulumi's
 *   `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` applies, as Pulumi applies it), the archive checked against its line, its
 *   CLI run.
 *
 * Where each looks is each tool's own setting (`npm_config_registry`, `PIP_INDEX_URL`, `GOPROXY`, Maven's settings
 * or `HELPDESK_VERIFY_MAVEN_REPOSITORY`): by default, the public registries. A registry's index can lag its upload,
 * so each install is tried {@link ATTEMPTS} times, {@link PAUSE_SECONDS} s apart. Prints one line per package; exit
 * status 1 naming every package that failed, with its tool's last lines.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  CLI_EXECUTABLE,
  goModulePath,
  mavenCoordinates,
  nodejsSdkPackage,
  PLUGIN_VERSION_PLACEHOLDER,
  PYTHON_PACKAGE,
  pluginDownloadUrl,
  RECEIVER_PYTHON_DISTRIBUTION,
  RECEIVER_PYTHON_PACKAGE,
  receiverGoModulePath,
  receiverNpmPackage,
} from "../../dist/kernel/names.js";
import { PACKAGE_NAME } from "../../dist/kernel/package-version.js";
import { archiveName } from "../release/release.ts";

const ROOT = resolve(import.meta.dirname, "../..");
/** How many times an install is tried before it fails, and the pause between tries (seconds). */
const ATTEMPTS = Number(process.env.HELPDESK_VERIFY_ATTEMPTS ?? 5);
const PAUSE_SECONDS = 30;

/** A package's check: what it installs, and a function that throws an Error saying what failed. */
interface Check {
  what: string;
  run(dir: string): void | Promise<void>;
}

/**
 * Runs a tool to its end (no shell).
 *
 * @returns its standard output
 * @throws Error with the tool's last 20 lines when it exits non-zero or cannot start
 */
function tool(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const ran = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (ran.error) throw new Error(`cannot run ${command}: ${ran.error.message}`);
  if (ran.status !== 0) {
    const tail = `${ran.stdout}\n${ran.stderr}`.trim().split("\n").slice(-20).join("\n");
    throw new Error(`${command} ${args.join(" ")} exited ${ran.status}:\n${tail}`);
  }
  return ran.stdout;
}

/**
 * The URL a plugin download URL is fetched from, with Pulumi's `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES`
 * (`<regexp>=<url>` pairs, comma-separated; the first whose regexp matches the URL replaces it) and the engine's
 * placeholder (`PLUGIN_VERSION_PLACEHOLDER`, in the override too) replaced by the version.
 */
function downloadUrl(url: string, version: string, overrides = process.env.PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES) {
  for (const pair of (overrides ?? "").split(",").filter(Boolean)) {
    const at = pair.indexOf("=");
    if (at > 0 && new RegExp(pair.slice(0, at)).test(url)) {
      url = pair.slice(at + 1);
      break;
    }
  }
  return url.replaceAll(PLUGIN_VERSION_PLACEHOLDER, version).replace(/\/?$/, "/");
}

/** Fetches a URL's body, or throws naming the URL and the status. */
async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} responded with ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

function checks(version: string): Check[] {
  const npmProject = (dir: string) => writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
  const npmInstall = ["install", "--no-audit", "--no-fund", "--loglevel=error"];
  return [
    {
      what: `npm ${PACKAGE_NAME}@${version}`,
      run(dir) {
        npmProject(dir);
        tool("npm", [...npmInstall, `${PACKAGE_NAME}@${version}`], dir);
        const printed = tool(join(dir, "node_modules", ".bin", CLI_EXECUTABLE), ["--version"], dir).trim();
        if (printed !== version) throw new Error(`${CLI_EXECUTABLE} --version printed ${printed}, not ${version}`);
      },
    },
    {
      what: `npm ${nodejsSdkPackage()}@${version}`,
      run(dir) {
        npmProject(dir);
        tool("npm", [...npmInstall, `${nodejsSdkPackage()}@${version}`], dir);
        const loaded = tool("node", ["-p", `Object.keys(require(${JSON.stringify(nodejsSdkPackage())})).length`], dir);
        if (!(Number(loaded) > 0)) throw new Error(`${nodejsSdkPackage()} loaded with no exports`);
      },
    },
    {
      what: `npm ${receiverNpmPackage()}@${version}`,
      run(dir) {
        npmProject(dir);
        tool("npm", [...npmInstall, `${receiverNpmPackage()}@${version}`], dir);
        const imported = tool(
          "node",
          [
            "--input-type=module",
            "-e",
            `import { verifyDelivery } from ${JSON.stringify(receiverNpmPackage())}; console.log(typeof verifyDelivery);`,
          ],
          dir,
        ).trim();
        if (imported !== "function") throw new Error(`${receiverNpmPackage()}'s verifyDelivery is a ${imported}`);
      },
    },
    ...[
      { distribution: PACKAGE_NAME, module: PYTHON_PACKAGE },
      { distribution: RECEIVER_PYTHON_DISTRIBUTION, module: RECEIVER_PYTHON_PACKAGE },
    ].map(
      ({ distribution, module }): Check => ({
        what: `PyPI ${distribution}==${version}`,
        run(dir) {
          tool("python3", ["-m", "venv", join(dir, "venv")], dir);
          const python = join(dir, "venv", "bin", "python");
          tool(
            python,
            ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `${distribution}==${version}`],
            dir,
          );
          tool(python, ["-c", `import ${module}`], dir);
        },
      }),
    ),
    ...[goModulePath(), receiverGoModulePath()].map(
      (module): Check => ({
        what: `Go ${module}@v${version}`,
        run(dir) {
          const flags = `${process.env.GOFLAGS ?? ""} -modcacherw`.trim();
          const env = { ...process.env, GOFLAGS: flags, GOMODCACHE: join(dir, "gomodcache"), GOWORK: "off" };
          tool("go", ["mod", "download", "-json", `${module}@v${version}`], dir, env);
        },
      }),
    ),
    {
      what: `Maven ${mavenCoordinates()}:${version}`,
      run(dir) {
        const repository = process.env.HELPDESK_VERIFY_MAVEN_REPOSITORY;
        tool(
          "mvn",
          [
            "-B",
            "-q",
            `-Dmaven.repo.local=${join(dir, "m2")}`,
            "dependency:get",
            `-Dartifact=${mavenCoordinates()}:${version}`,
            "-Dtransitive=false",
            ...(repository ? [`-DremoteRepositories=release::::${repository}`] : []),
          ],
          dir,
        );
      },
    },
    {
      what: `the GitHub release's linux-amd64 plugin archive v${version}`,
      run: (dir) => checkPluginArchive(version, dir),
    },
  ];
}

/** The linux-amd64 plugin archive from the GitHub release, checked against SHA256SUMS, its CLI run. */
async function checkPluginArchive(version: string, dir: string): Promise<void> {
  const base = downloadUrl(pluginDownloadUrl(), version);
  const archive = archiveName(version, { os: "linux", arch: "x64" });
  const sums = (await download(`${base}SHA256SUMS`)).toString("utf8");
  const bytes = await download(`${base}${archive}`);
  const listed = sums
    .split("\n")
    .find((line) => line.endsWith(`  ${archive}`))
    ?.slice(0, 64);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (listed !== actual) throw new Error(`${archive} has SHA-256 ${actual}; SHA256SUMS lists ${listed ?? "no line"}`);
  writeFileSync(join(dir, archive), bytes);
  mkdirSync(join(dir, "plugin"));
  tool("tar", ["-xzf", join(dir, archive), "-C", join(dir, "plugin")], dir);
  const printed = tool(join(dir, "plugin", CLI_EXECUTABLE), ["--version"], dir).trim();
  if (printed !== version) throw new Error(`the archive's ${CLI_EXECUTABLE} --version printed ${printed}`);
}

/** Tries `attempt` up to {@link ATTEMPTS} times; returns the last error, or undefined when one try passed. */
async function tried(attempt: () => Promise<void> | void): Promise<Error | undefined> {
  let last: Error | undefined;
  for (let n = 1; n <= ATTEMPTS; n++) {
    try {
      await attempt();
      return undefined;
    } catch (error) {
      last = error as Error;
      if (n < ATTEMPTS) await new Promise((done) => setTimeout(done, PAUSE_SECONDS * 1000));
    }
  }
  return last;
}

const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), "helpdesk-verify-"));
const failed: string[] = [];
try {
  for (const check of checks(version)) {
    // Each try in a fresh folder: nothing a failed try left behind helps the next.
    const error = await tried(() => check.run(mkdtempSync(join(work, "try-"))));
    process.stdout.write(`verify: ${check.what}: ${error ? "FAILED" : "installed by name, and ran"}\n`);
    if (error) failed.push(`${check.what}: ${error.message}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failed.length > 0) {
  process.stderr.write(
    `error: ${failed.length} package(s) of ${version} could not be installed by name:\n${failed.join("\n")}\n`,
  );
  process.exitCode = 1;
}
