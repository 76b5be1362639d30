/**
 * `npm run publish` where the release workflow's publish job runs it: a checkout with no node_modules and no dist/
 * (tests/support/registries.ts `publishCheckout`), an empty HELPDESK_CACHE, a Node.js on PATH and each target's own
 * tool, nothing else. It runs there; it stops before anything is sent, naming every missing tool, file and setting
 * and its target in one message; a dry run needs no `gh`; the Go tag goes only to the remote `--go-remote` names;
 * no credential planted in a setting shows in any output; and `npm publish` of the repository itself is refused
 * before anything is uploaded.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goModulePath, receiverGoModulePath } from "../../kernel/names.js";
import { SUPPORTED_NODE_RANGE } from "../../kernel/node-support.js";
import { packageVersion } from "../../kernel/package-version.js";
import { required } from "../../kernel/required.ts";
import { runCommand, shown } from "../../scripts/lib/processes.ts";
import { repoRoot } from "../../scripts/lib/repo-root.ts";
import { releasePythonDistributions, releasePythonFiles } from "../../scripts/publish/packages.ts";
import { pythonArtefactNamesOf } from "../../scripts/publish/prerelease.ts";
import { freePort } from "../support/cli.js";
import { helpdeskCache } from "../support/python.js";
import {
  type LocalServer,
  PUBLISH_SCRIPT_TOOLS,
  publishCheckout,
  runPublish,
  serveFolder,
  smallRelease,
  toolsFolder,
} from "../support/registries.js";

const VERSION = packageVersion();
/** The go target's need of a place, as the publish names it. */
const GO_PLACE =
  "  go: a place for the Go modules: give --go-remote <git remote name or URL> (the tags sdk/go/v<version> and receiver/go/v<version> are pushed there) or --go-proxy <folder> (a GOPROXY-protocol folder)";
const ARCHIVES = [
  `pulumi-resource-helpdesk-v${VERSION}-darwin-arm64.tar.gz`,
  `pulumi-resource-helpdesk-v${VERSION}-linux-amd64.tar.gz`,
];

let work: string;
let checkout: string;
let release: string;
/** A server every registry setting points at, so a test can show nothing was asked or sent. */
let registry: LocalServer;

/** An environment of only `PATH` (a folder), a HOME and an empty HELPDESK_CACHE of the test's, and `extra`. */
function jobEnv(path: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: path, HOME: join(work, "home"), HELPDESK_CACHE: join(work, "empty-cache"), ...extra };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "helpdesk-publish-job-"));
  mkdirSync(join(work, "home"));
  mkdirSync(join(work, "empty-cache"));
  checkout = publishCheckout(join(work, "checkout"));
  release = smallRelease(join(work, "release"), VERSION);
  registry = await serveFolder(join(work, "registry"));
}, 120_000);

afterAll(async () => {
  await registry?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("npm run publish with only what the publish job has", () => {
  it("runs from a checkout without node_modules or dist/, with only a Node.js on PATH and an empty HELPDESK_CACHE", async () => {
    const path = toolsFolder(join(work, "node-only"), [...PUBLISH_SCRIPT_TOOLS, "node"]);
    const mirror = join(work, "mirror");
    const ran = await runPublish(
      checkout,
      ["--dry-run", "--only", "github", "--github-release-folder", mirror, "--release", release],
      jobEnv(path),
    );
    expect(ran.code, shown("publish --dry-run --only github", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(
      [...ARCHIVES, "SHA256SUMS"].map((name) => `github: ${name} -> ${join(mirror, `v${VERSION}`)}: would publish`),
    );
    expect(ran.stderr).toBe("");
    expect(readdirSync(checkout)).not.toContain("node_modules");
    expect(readdirSync(checkout)).not.toContain("dist");
  });

  it("without a supported Node.js on PATH or in the cache: one line naming what it needs and what it found", async () => {
    const old = join(helpdeskCache, "node-v20.20.2", "bin", "node");
    const path = toolsFolder(join(work, "old-node"), PUBLISH_SCRIPT_TOOLS);
    execFileSync("ln", ["-s", old, join(path, "node")]);
    const ran = await runPublish(checkout, ["--dry-run"], jobEnv(path));
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `error: npm run publish needs Node.js ${SUPPORTED_NODE_RANGE} on PATH (found: ${path}/node, v20.20.2) or in ${join(work, "empty-cache")}/node-v24.21.0 (scripts/setup.sh puts it there)\n`,
    );
    const none = await runPublish(
      checkout,
      ["--dry-run"],
      jobEnv(toolsFolder(join(work, "no-node"), PUBLISH_SCRIPT_TOOLS)),
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`on PATH (found: none) or in`);
  });

  it("stops before anything is asked or sent, naming every missing tool, file and setting and its target in one message", async () => {
    const path = toolsFolder(join(work, "no-tools"), [...PUBLISH_SCRIPT_TOOLS, "node"]);
    const ran = await runPublish(
      checkout,
      ["--release", release],
      jobEnv(path, {
        npm_config_registry: registry.url,
        TWINE_REPOSITORY_URL: registry.url,
        MAVEN_CENTRAL_URL: registry.url,
        MAVEN_CENTRAL_USERNAME: "deployer",
        MAVEN_CENTRAL_PASSWORD: "unused-the-run-stops-first",
      }),
    );
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe("");
    const lines = ran.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("error: publish: nothing was sent; the chosen targets need what is missing:");
    expect(lines.slice(1)).toEqual(
      expect.arrayContaining([
        "  github: gh (the GitHub CLI) on PATH: install it (cli.github.com), or give --github-release-folder <folder>",
        "  npm: npm (Node.js's package manager) on PATH: install Node.js with its npm (actions/setup-node)",
        "  npm: tar (the tarballs' package.json are read with it) on PATH: install it",
        "  pypi: python3 (Python >= 3.11, which makes the twine virtualenv) on PATH: install it, or set HELPDESK_PYTHON to one (actions/setup-python)",
        ...releasePythonFiles(VERSION).map((name) => `  pypi: ${join(release, name)}: npm run release builds it`),
        "  go: git (Git) on PATH: install it: the modules are the commit's folders",
        GO_PLACE,
      ]),
    );
    expect(lines.some((line) => line.startsWith("  maven: mvn "))).toBe(true);
    expect(registry.log()).toBe("");
  });

  it("--dry-run needs no gh: it says what it could not ask, and lists what would be sent", async () => {
    const path = toolsFolder(join(work, "no-gh"), [...PUBLISH_SCRIPT_TOOLS, "node"]);
    const ran = await runPublish(checkout, ["--dry-run", "--only", "github", "--release", release], jobEnv(path));
    expect(ran.code, shown("publish --dry-run --only github without gh", ran)).toBe(0);
    expect(ran.stdout.trim().split("\n")).toEqual(
      [...ARCHIVES, "SHA256SUMS"].map((name) => `github: ${name} -> the GitHub release v${VERSION}: would publish`),
    );
    expect(ran.stderr).toBe(
      `github: no gh (the GitHub CLI) on PATH: did not ask the GitHub release v${VERSION} what it holds: every asset is listed as would publish\n`,
    );
  });
});

describe("the Go module's tag goes only where --go-remote says", () => {
  it("with neither --go-remote nor --go-proxy, choosing go is refused, naming both", async () => {
    const ran = await runPublish(
      checkout,
      ["--dry-run", "--only", "go", "--release", release],
      jobEnv(required(process.env.PATH, "PATH")),
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).toBe(
      `error: publish: nothing was sent; the chosen targets need what is missing:\n${GO_PLACE}\n`,
    );
  });

  it("pushes sdk/go/v<version> and receiver/go/v<version> at HEAD to the remote named, and finds them there the second time", async () => {
    const remote = join(work, "remote.git");
    execFileSync("git", ["init", "--quiet", "--bare", remote]);
    const tags = [`sdk/go/v${VERSION}`, `receiver/go/v${VERSION}`];
    const env = jobEnv(required(process.env.PATH, "PATH"));
    const args = ["--only", "go", "--go-remote", remote, "--release", release];
    const dry = await runPublish(checkout, ["--dry-run", ...args], env);
    expect(dry.code, shown("publish --dry-run --only go", dry)).toBe(0);
    const where = `the tags ${tags.join(" and ")} on ${remote}`;
    const what = [goModulePath(), receiverGoModulePath()].map((module) => `go: ${module}@v${VERSION} -> ${where}`);
    expect(goModulePath()).toBe("github.com/pulumi-helpdesk/pulumi-helpdesk/sdk/go");
    expect(receiverGoModulePath()).toBe("github.com/pulumi-helpdesk/pulumi-helpdesk/receiver/go");
    expect(dry.stdout).toBe(what.map((line) => `${line}: would publish\n`).join(""));
    expect(execFileSync("git", ["-C", remote, "tag"], { encoding: "utf8" })).toBe("");
    const first = await runPublish(checkout, args, env);
    expect(first.code, shown("publish --only go", first)).toBe(0);
    expect(first.stdout).toBe(what.map((line) => `${line}: published\n`).join(""));
    const head = execFileSync("git", ["-C", checkout, "rev-parse", "HEAD"], { encoding: "utf8" });
    for (const tag of tags)
      expect(execFileSync("git", ["-C", remote, "rev-parse", tag], { encoding: "utf8" }), tag).toBe(head);
    const second = await runPublish(checkout, args, env);
    expect(second.stdout).toBe(what.map((line) => `${line}: present, skipped\n`).join(""));
  });
});

describe("no credential in any output", () => {
  const SECRETS = ["s3cret-git-token", "s3cret-twine-password", "s3cret-pip-password", "s3cret-maven-password"];
  let pythonRelease: string;
  /** A port nothing listens on. */
  let closed: number;

  /** A wheel and sdist of each Python distribution's names, with the metadata `twine check --strict` wants, and SHA256SUMS. */
  function pythonFiles(dir: string): string {
    mkdirSync(dir);
    for (const { name: distribution } of releasePythonDistributions()) {
      const names = pythonArtefactNamesOf(distribution, VERSION);
      const metadata = `Metadata-Version: 2.1\nName: ${distribution}\nVersion: ${VERSION}\nSummary: a test\nDescription-Content-Type: text/markdown\n\n# A test\n`;
      execFileSync(
        "python3",
        [
          "-c",
          `import sys, tarfile, io, zipfile
meta, wheel, sdist, base = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
info = base + ".dist-info/"
with zipfile.ZipFile(wheel, "w") as z:
    z.writestr(info + "METADATA", meta)
    z.writestr(info + "WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
    z.writestr(info + "RECORD", "")
with tarfile.open(sdist, "w:gz") as t:
    folder = tarfile.TarInfo(base); folder.type = tarfile.DIRTYPE; folder.mode = 0o755
    t.addfile(folder)
    data = meta.encode()
    entry = tarfile.TarInfo(base + "/PKG-INFO"); entry.size = len(data)
    t.addfile(entry, io.BytesIO(data))`,
          metadata,
          join(dir, names.wheel),
          join(dir, names.sdist),
          `${distribution}-${VERSION}`,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
    }
    writeFileSync(
      join(dir, "SHA256SUMS"),
      releasePythonFiles(VERSION)
        .map((name) => `${execFileSync("sha256sum", [join(dir, name)], { encoding: "utf8" }).slice(0, 64)}  ${name}\n`)
        .join(""),
    );
    return dir;
  }

  beforeAll(async () => {
    closed = await freePort();
    pythonRelease = pythonFiles(join(work, "python-release"));
    execFileSync("git", [
      "-C",
      checkout,
      "remote",
      "add",
      "release",
      `https://x-access-token:${SECRETS[0]}@127.0.0.1:${closed}/pulumi-helpdesk/pulumi-helpdesk.git`,
    ]);
  });

  /** The publish's output with every credential planted in its settings: the twine venv from the machine's cache. */
  async function publishWithSecrets(args: string[], indexUrl: string): Promise<string> {
    const ran = await runPublish(checkout, args, {
      ...process.env,
      HOME: join(work, "home"),
      TWINE_REPOSITORY_URL: `http://uploader:${SECRETS[1]}@${new URL(registry.url).host}/`,
      TWINE_USERNAME: "uploader",
      TWINE_PASSWORD: SECRETS[1],
      PIP_INDEX_URL: indexUrl,
      // A Portal address carrying the user token, which the maven target refuses without printing it.
      MAVEN_CENTRAL_URL: `http://deployer:${SECRETS[3]}@127.0.0.1:${closed}/`,
      MAVEN_CENTRAL_USERNAME: "deployer",
      MAVEN_CENTRAL_PASSWORD: SECRETS[3],
      NODE_AUTH_TOKEN: "s3cret-npm-token",
    });
    return `${ran.code}\n${ran.stdout}${ran.stderr}`;
  }

  it("a dry run shows each URL with its userinfo as ***", async () => {
    const index = `http://reader:${SECRETS[2]}@${new URL(registry.url).host}/simple/`;
    const output = await publishWithSecrets(["--dry-run", "--only", "pypi", "--release", pythonRelease], index);
    const host = new URL(registry.url).host;
    expect(output).toBe(
      [
        "0",
        ...releasePythonFiles(VERSION).map((name) => `pypi: ${name} -> http://***@${host}/: would publish`),
        "",
      ].join("\n"),
    );
    expect(registry.log()).toContain("GET /simple/pulumi-helpdesk/");
  }, 300_000);

  it("refusals of each target name where they send, never the credential", async () => {
    const unreachable = `http://reader:${SECRETS[2]}@127.0.0.1:${closed}/simple/`;
    const outputs = [
      await publishWithSecrets(["--dry-run", "--only", "pypi", "--release", pythonRelease], unreachable),
      await publishWithSecrets(
        ["--dry-run", "--only", "go", "--go-remote", "release", "--release", release],
        unreachable,
      ),
      await publishWithSecrets(
        [
          "--dry-run",
          "--only",
          "go",
          "--go-remote",
          `https://x-access-token:${SECRETS[0]}@127.0.0.1:${closed}/r.git`,
          "--release",
          release,
        ],
        unreachable,
      ),
      await publishWithSecrets(["--dry-run", "--only", "maven", "--release", release], unreachable),
    ];
    expect(outputs[0]).toBe(
      `1\nerror: pypi: cannot reach http://***@127.0.0.1:${closed}/simple/pulumi-helpdesk/: Error: connect ECONNREFUSED 127.0.0.1:${closed}\n`,
    );
    expect(outputs[1]).toMatch(/^1\nerror: go: git ls-remote --tags release refs\/tags\/sdk\/go\/v.* failed: /);
    expect(outputs[2]).toContain(`\nerror: go: git ls-remote --tags https://***@127.0.0.1:${closed}/r.git `);
    expect(outputs[3]).toMatch(/^1\nerror: maven: /);
    for (const output of outputs) for (const secret of SECRETS) expect(output).not.toContain(secret);
  }, 300_000);
});

describe("npm publish of the repository itself", () => {
  it("is refused by prepublishOnly, before npm packs or uploads anything", async () => {
    const ran = await runCommand("npm", ["publish"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        HOME: join(work, "home"),
        npm_config_registry: registry.url,
        NODE_AUTH_TOKEN: "any",
        [`npm_config_//${new URL(registry.url).host}/:_authToken`]: "any",
      },
    });
    expect(ran.code).not.toBe(0);
    expect(ran.stderr).toContain(
      "error: npm publish of the repository is not how it is published: run npm run publish (it publishes release/, which npm run release builds)",
    );
    expect(ran.stderr).toContain("npm error command failed");
    expect(registry.log()).not.toMatch(/^PUT /m);
  });
});
